// SPDX-License-Identifier: MIT
/// Named default tile policies per target (policy layer).
#pragma once

#include "fp8gemm/arch/amd/cdna3_mma.hpp"
#include "fp8gemm/arch/amd/cdna4_mma.hpp"
#include "fp8gemm/arch/nvidia/sm89_mma.hpp"
#include "fp8gemm/policy/tile_policy.hpp"
#include "fp8gemm/policy/wgmma_policy.hpp"

namespace fp8gemm {

/// Hopper, portable mma.sync path: 128 x 128 x 64 block tile, 8 warps (2 x 4) of 64 x 32, four
/// LDS stages = 4 x (128 + 128) x 80 B = 80 KiB, filled by cp.async (three K-tiles in flight).
/// 64 x 32 per warp keeps accumulators + promoted partial sums (128 floats) within 255 registers
/// without spills; FastAccumulation (no partial sums) leaves room for two blocks per SM
/// (docs/performance.md#sm90-default-registers).
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90Default = TilePolicy<128, 128, 64, 2, 4, arch::Sm90MmaFp8ViaF16<EA, EB>, 4>;

/// Hopper, small-M (decode) shapes: 64 x 128 x 64, 4 warps (1 x 4) of 64 x 32, four stages.
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90SmallM = TilePolicy<64, 128, 64, 1, 4, arch::Sm90MmaFp8ViaF16<EA, EB>, 4>;

/// Hopper peak path (TMA + WGMMA, persistent, warp-specialized), promoted accumulation (the
/// default; for large shapes see Sm90WgmmaLarge): 128 x 128 x 128, two cooperative consumer
/// warpgroups of one m64 row block each (64 accumulators + two sets of 64 partial sums = 192
/// registers: the pipelined promotion, kPipelinedPromotion), six stages of (128 + 128) x 128 B =
/// 192 KiB. Its main loop is bound by L2 (64 B of A and B per clock per SM at the tensor rate).
/// Faster than 256 x 128 with one partial set, and than the ping-pong schedule
/// (docs/performance.md#sm90-wgmma-default-tile). B must be [N, K].
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaDefault = WgmmaTilePolicy<128, 128, 2, 6, EA, EB>;

/// Sm90WgmmaDefault in five stages (160 KiB of ring), for Blockwise scales: with bf16 / fp16 C the
/// six-stage tile keeps its TMA-store staging and gives the scale ring up (so its consumers load
/// A's scales and vote in every tile); five stages hold the ring, the staging and the checked
/// tiles' flags. 5-12 % faster than six stages at M = 2048-4096 on an H100, and level or faster
/// per-tensor (docs/performance.md#sm90-checked-tiles). AutoGemm's `sm90_wgmma_default` for
/// Blockwise calls.
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaDefaultBlockwise = WgmmaTilePolicy<128, 128, 2, 5, EA, EB>;

/// Hopper peak path for large GEMMs with per-tensor, per-channel or Blockwise scales (identity
/// epilogue, or GELU-tanh with per-tensor scales), promoted or with FastAccumulation (the same
/// policy: the accumulation mode is GemmConfig's): 128 x 256 x 128, two cooperative consumer
/// warpgroups of 64 rows x 256 columns (128 accumulators each), promoted in four n64 chunks (two
/// sets of 32 partial sums: 192 registers, kPromoteChunks), three stages = 144 KiB next to the
/// TMA-store epilogue's 64 KiB of bf16 / fp16 staging. Its main loop reads 25 % fewer bytes of A
/// and B per unit of work from L2 than Sm90WgmmaDefault's, where the 128 x 128 loop is bound.
/// GELU-erf, and GELU-tanh with per-channel or Blockwise scales, store from registers here (they
/// spill in the staging loop: WgmmaEpilogueChoice). Sm90WgmmaDefault stays ahead where 128 x 256
/// tiles fill few waves of the 132 SMs (docs/performance.md#sm90-wgmma-large).
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaLarge = WgmmaTilePolicy<128, 256, 2, 3, EA, EB>;

/// Sm90WgmmaDefault and a four-stage Sm90WgmmaLarge (register stores) as 2-CTA clusters sharing
/// A's tile (MulticastA: the pair computes neighbouring tiles of one tile row) or B's
/// (MulticastB: of one tile column), fetched once from L2 by TMA multicast, each CTA copying half
/// of it. No faster than unclustered, so no default uses them
/// (docs/performance.md#sm90-multicast).
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaDefaultMulticastA =
    WgmmaTilePolicy<128, 128, 2, 6, EA, EB, WgmmaSchedule::kCooperative, WgmmaMulticast::kA>;
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaDefaultMulticastB =
    WgmmaTilePolicy<128, 128, 2, 6, EA, EB, WgmmaSchedule::kCooperative, WgmmaMulticast::kB>;
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaFastMulticastA =
    WgmmaTilePolicy<128, 256, 2, 4, EA, EB, WgmmaSchedule::kCooperative, WgmmaMulticast::kA>;
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaFastMulticastB =
    WgmmaTilePolicy<128, 256, 2, 4, EA, EB, WgmmaSchedule::kCooperative, WgmmaMulticast::kB>;

/// Hopper peak path for small M (decode, M <= 64): 64 x 64 x 128 tiles, one consumer warpgroup,
/// thirteen stages of (64 + 64) x 128 B = 208 KiB: N = 8192 gives 128 tiles, one per SM, each
/// streaming its 64 rows of B with 104 KiB of them in flight. Decode is bound by the bytes in
/// flight per SM, hence the stages (docs/performance.md#sm90-wgmma-small-m). A's copies are only
/// as tall as M (TmaWgmmaMainloop::a_box_rows). For 64 < M <= 128 use Sm90WgmmaMediumM.
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaSmallM = WgmmaTilePolicy<64, 64, 1, 13, EA, EB>;

/// Hopper peak path for 64 < M <= 128 (decode with a batch): 128 x 64 x 128 tiles, two
/// cooperative consumers of one m64 row block each (pipelined promotion), eight stages of
/// (128 + 64) x 128 B = 192 KiB, which leave room for the TMA-store epilogue's staging tile:
/// N = 8192 gives 128 tiles in one wave, where SmallM's 64-row tiles need two (256 tiles).
/// L2 hints on (kL2StreamHints): with M <= 128, B's lines evict first and A's last. The tile,
/// the hints and the eight stages: docs/performance.md#sm90-wgmma-medium-m.
template <class EA = e4m3fn, class EB = e4m3fn>
struct Sm90WgmmaMediumM : WgmmaTilePolicy<128, 64, 2, 8, EA, EB> {
  static constexpr bool kL2StreamHints = true;
};

/// Hopper decode with swapped operands (C^T = B A^T, WgmmaSwapABPolicy): 64 rows of B as the
/// wgmma M and BlockMCols = 8, 16 or 32 rows of A as its N, one consumer warpgroup, as many
/// stages of (BlockMCols + 64) x 128 B as fit 227 KiB (wgmma_max_stages): 25 / 22 / 18 stages of
/// 9 / 10 / 12 KiB, i.e. 200 / 176 / 144 KiB of B in flight per SM where Sm90WgmmaSmallM's
/// 64-row A leaves 104 KiB (cuBLASLt's decode kernels swap the same way: 64x8 at M = 1, 64x16
/// at M = 16). N = 8192 gives 128 tiles per BlockMCols rows of M. Pick the smallest BlockMCols
/// >= M (each m-tile streams all of B again); 64 and 128 compile too (14 / 9 stages; 128 at
/// M = 128 is one wave of 128 tiles, like Sm90WgmmaMediumM, which is faster there:
/// docs/performance.md#sm90-wgmma-decode). Blockwise scales up to BlockMCols = 64 (W9; slower
/// than Sm90WgmmaSmallM, so not AutoGemm's candidates: docs/performance.md#sm90-swapped-blockwise).
/// Wide tiles (160, 192, 256 columns: 8 / 7 /
/// 5 stages) hold M = 129-256 in one tile row, so B is read once where 128-row tiles read it
/// twice; promoted in two or four chunks of the wgmma N; measured slower than the 128-row tiles
/// there, so not AutoGemm candidates (docs/performance.md#sm90-wide-swapped-tiles). B must be
/// [N, K].
template <int BlockMCols, class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaDecode =
    WgmmaSwapABPolicy<64, BlockMCols, 1, wgmma_max_stages<(64 + BlockMCols) * 128>(), EA, EB>;

/// Hopper for M between the decode and the 128-row tiles' sizes (M = 65-256, M not a multiple
/// of 128): swapped operands as Sm90WgmmaDecode, with two cooperative consumer warpgroups, each
/// multiplying its own 64 of the tile's 128 rows of B by the same BlockMCols rows of A. The wgmma
/// N follows M: M = 200 runs as two tile rows of 104 (208 rows computed, where 128-row tiles
/// compute 256), M = 160 as one of 160. As many stages of (128 + BlockMCols) x 128 B as fit
/// 227 KiB beside the TMA-store epilogue's bf16 staging tiles (2 x BlockMCols x 128 B): 6 stages
/// at 104 and 128 columns, 5 at 160, 4 at 192. The tile cuBLASLt's tensor-wise kernels use at
/// these M (bench/NOTES.md, twenty-ninth session). B must be [N, K].
template <int BlockMCols, class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaMidM =
    WgmmaSwapABPolicy<128, BlockMCols, 2,
                      wgmma_max_stages<(128 + BlockMCols) * 128, 2 * BlockMCols * 128>(), EA, EB>;

/// Sm90WgmmaMidM as 2-CTA clusters whose two tiles are neighbouring tile rows of M in one tile
/// column: they share B's 128-row tile, which each CTA copies half of (one consumer's 64 rows)
/// and multicasts into both, so a k-block brings BlockMCols + 64 rows from L2 per CTA instead of
/// BlockMCols + 128. An odd count of tile rows leaves the last pairs' second CTA multiplying for
/// nothing (M = 200 at 104 columns is two tile rows: one pair per tile column). Measured no
/// faster than Sm90WgmmaMidM (0.99-1.05x its time at M = 160-256 on an H100), so no selection uses
/// it (docs/performance.md#sm90-mid-m).
template <int BlockMCols, class EA = e4m3fn, class EB = e4m3fn>
using Sm90WgmmaMidMMulticastB =
    WgmmaSwapABPolicy<128, BlockMCols, 2,
                      wgmma_max_stages<(128 + BlockMCols) * 128, 2 * BlockMCols * 128>(), EA, EB,
                      WgmmaMulticast::kB>;

/// gfx950 (CDNA4): 256 x 256 x 128 block tile on the full-rate 16x16x128 MFMA, 8 waves (4 x 2) of
/// 64 x 128, two LDS stages. mk_nk_mn runs the direct-to-LDS ping-pong mainloop on XOR-swizzled
/// 128-byte rows: 2 x (256 + 256) x 128 B = 128 KiB of the 160 KiB; mk_kn_mn the register-staged
/// one on rows padded to 144 B: 144 KiB. Also the MX-32 default: its E8M0 bytes (16 per lane and
/// K tile: buffer byte loads, B's a tile and A's half a tile ahead) fit beside the accumulators at
/// two waves per SIMD (232 VGPRs, no spill), where Cdna4KBlocked's one wave per SIMD has no second
/// wave to run MFMAs during the load phases (docs/performance.md#cdna4-mx32-default).
template <class EA = e4m3fn, class EB = e4m3fn>
using Cdna4Default = TilePolicy<256, 256, 128, 4, 2, arch::Cdna4Mma16x16x128<EA, EB>, 2>;

/// gfx950 with promoted K-blocked scales (Blockwise: each wave holds a K tile's scales of its
/// rows and columns beside the accumulators; on mk_kn_mn the promotion also needs a second
/// accumulator set): 256 x 128 x 128, 4 waves (4 x 1) of 64 x 128 at one wave per SIMD (512
/// registers per lane), two LDS stages = 2 x (256 + 128) x 128 B = 96 KiB + 6 KiB of scales on
/// the direct-to-LDS mainloop (mk_nk_mn: the folded promotion's accumulators, products
/// s_a · s_b (16: 64 rows) and fragments fit the 256 VGPRs (246), where 2 x 2 waves of 128 x 64
/// (32 products) move accumulators to and from AGPRs every trip (256 + 38), and 8 waves of
/// 64 x 64 pay a wave's load-phase overhead on half the MFMAs:
/// docs/performance.md#cdna4-kblocked), 144-byte padded rows = 108 KiB otherwise.
template <class EA = e4m3fn, class EB = e4m3fn>
using Cdna4KBlocked = TilePolicy<256, 128, 128, 4, 1, arch::Cdna4Mma16x16x128<EA, EB>, 2>;

/// gfx942 (CDNA3): 128 x 256 x 64 block tile on the 16x16x32 MFMA (FNUZ), 4 waves (2 x 2) of
/// 64 x 128, two LDS stages. mk_nk_mn (scales per tensor, channel or K tile) runs the buffer-load
/// mainloop with its tile loads through registers (buffer_load_dwordx4, ds_write_b128 a K tile
/// later, between the MFMAs; gfx942's direct-to-LDS loads move 4 bytes per lane and lose the
/// static comparison: docs/gfx942_tile_loads.md) into XOR-swizzled 64-byte rows: 2 x (128 + 256)
/// x 64 B = 48 KiB of the 64 KiB; mk_kn_mn and MX-32 the register-staged multistage one on rows
/// padded to 72 B: 54 KiB.
template <class EA = e4m3fnuz, class EB = e4m3fnuz>
using Cdna3Default = TilePolicy<128, 256, 64, 2, 2, arch::Cdna3Mma16x16x32<EA, EB>, 2>;

}  // namespace fp8gemm
