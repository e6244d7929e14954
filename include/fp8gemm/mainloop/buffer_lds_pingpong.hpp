// SPDX-License-Identifier: MIT
/// The CDNA K loop (mainloop layer): A and B go global -> LDS by buffer loads (TileLoadT): direct
/// to LDS (gfx950: buffer_load_dwordx4 ... lds, no registers; gfx942's variant: buffer_load_dword
/// ... lds, 4 bytes per lane) or through registers (gfx942's default: buffer_load_dwordx4, then
/// ds_write_b128 a K tile later; docs/gfx942_tile_loads.md), into XOR-swizzled LDS tiles, whose
/// buffer ranges zero-fill rows past M / N; with 8 waves the two waves of each SIMD ping-pong (one
/// multiplies under s_setprio 1 while the other loads); the next cluster's fragments are read from
/// LDS between the current cluster's MFMAs; every wait is counted from the load schedule. Same
/// contract as LdsMultistageMainloop (docs/architecture.md, "Extension point 1"). GemmConfig picks
/// it where BufferLdsPingPongSupports holds (mk_nk_mn; gfx950's 16x16x128 atoms with BlockK 128,
/// gfx942's 16x16x32 with BlockK 64; 4 or 8 waves); elsewhere (sm90, mk_kn_mn, the 32x32 atoms)
/// LdsMultistageMainloop runs.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/common.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/global_to_lds.hpp"
#include "fp8gemm/tile/lds_layout.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// Whether BufferLdsPingPongMainloop can run Policy with B stored kLayoutB, these scales and this
/// promotion interval (it promotes, if at all, once per K tile).
template <class Policy, class Granularity, LayoutB kLayoutB, int kPromoteK,
          class TileLoad = arch::DefaultTileLoad<typename Policy::Arch>>
struct BufferLdsPingPongSupports {
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  static constexpr int kWaves = Policy::kWaves;
  static constexpr bool kKBlocked = PromotionPlan<Policy, Granularity, kPromoteK>::kKBlockedScales;
  /// K-blocked scales: each K tile lies inside one scale block, so the scale block is a whole
  /// number of K tiles (scale_offset: K tile t uses scale block t · BlockK / bk). A block of 96
  /// or 192 K over tiles of 64 or 128 would straddle tiles: those go to LdsMultistageMainloop,
  /// whose static_asserts refuse them in words.
  static constexpr bool kPromotesPerTile = kKBlocked
                                               ? Granularity::kBlockK % Policy::kBlockK == 0
                                               : (kPromoteK == 0 || kPromoteK == Policy::kBlockK);
  /// Rows a wave's tile load fills: 64 lanes x kLoadBytes over rows of BlockK bytes (16 bytes
  /// through registers, else the arch's direct-to-LDS width).
  static constexpr bool kStaged = std::is_same_v<TileLoad, arch::ThroughRegisters>;
  static constexpr int kLoadBytes = kStaged ? 16 : arch::direct_to_lds_bytes<Arch>::value;
  static constexpr int kSlotsPerWaveLoadRaw = kLoadBytes * Arch::kWaveSize / Policy::kBlockK;
  static constexpr int kSlotsPerWaveLoad = kSlotsPerWaveLoadRaw > 0 ? kSlotsPerWaveLoadRaw : 1;
  /// The atom reads a lane's K bytes of the tile as 16-byte chunks (one per 64 of K): either as
  /// its own fragment (kK == BlockK, 16-byte chunks: gfx950's 16x16x128) or kBlockK / kK MFMAs at
  /// a time, 8 bytes each (one 8-byte chunk per lane: gfx942's 16x16x32; K permuted in the tile).
  static constexpr bool kAtomFits =
      Atom::kK == Policy::kBlockK
          ? Atom::kAChunks * Atom::kAChunkBytes == Policy::kBlockK / 4 &&
                Atom::kBChunks * Atom::kBChunkBytes == Policy::kBlockK / 4 &&
                Atom::kAChunkBytes == 16 && Atom::kBChunkBytes == 16
          : Policy::kBlockK % Atom::kK == 0 && Atom::kAChunks == 1 && Atom::kBChunks == 1 &&
                Atom::kAChunkBytes == 8 && Atom::kBChunkBytes == 8 && Atom::kK == 32;
  /// A cluster's MFMAs (2 B atoms x kAtomsM A atoms x kBlockK / kK each) carry the next
  /// cluster's B reads, one 16-byte read after each of the first 2 kBlockK / 64: a 16-row wave
  /// tile on gfx950 (2 MFMAs for 4 reads) would leave reads out.
  static constexpr bool kReadsFit =
      Atom::kK <= Policy::kBlockK &&
      2 * Policy::kAtomsM * (Policy::kBlockK / Atom::kK) >= 2 * (Policy::kBlockK / 64);
  /// Hardware MX-32 scales go into the MFMA itself, which the promoted path (partial sums per
  /// atom) does not issue: MX-32 with PromoteEvery runs on LdsMultistageMainloop.
  static constexpr bool kScalesFitPromotion =
      !PromotionPlan<Policy, Granularity, kPromoteK>::kHardwareMx || kPromoteK == 0;
  /// Blockwise: each wave loads its tile's scales a wave-wide row (64 floats) at a time.
  static constexpr bool kScaleLoadsFit = !kKBlocked || (Policy::kWaveTileM % Arch::kWaveSize == 0 &&
                                                        Policy::kWaveTileN % Arch::kWaveSize == 0);
  static constexpr bool value =
      arch::direct_to_lds_bytes<Arch>::value > 0 && (kLoadBytes == 16 || kLoadBytes == 4) &&
      (!kStaged || kWaves == 4) &&
      (kLayoutB == LayoutB::kNK) && Arch::kWaveSize == 64 && Atom::kM == 16 && Atom::kN == 16 &&
      (Policy::kBlockK == 128 || Policy::kBlockK == 64) && kAtomFits &&
      (kWaves == 4 || kWaves == 8) && Policy::kAtomsN % 4 == 0 &&
      Policy::kBlockM % (kSlotsPerWaveLoad * kWaves) == 0 &&
      (Policy::kWavesN * 32) % (kSlotsPerWaveLoad * kWaves) == 0 &&
      (kPromotesPerTile && kReadsFit && kScalesFitPromotion && kScaleLoadsFit);
};

/// Two LDS stages of [kBlockM][kBlockK] A and [kBlockN][kBlockK] B, XOR-swizzled
/// (tile/lds_layout.hpp). On gfx942 (kBlockK 64, 16x16x32 MFMA) a lane reads its 16 bytes of a
/// row per tile with one ds_read_b128 and feeds them to two MFMAs (read_k: K permuted within the
/// tile, identically for A and B).
/// A K tile is kClusters phase pairs; in pair c every wave
///   L_c: issues its share of the loads of phase c (table below; with one wave per SIMD they go
///        between the MFMAs of M_(c-1) instead: kLoadsInMPhase) (c = 0: and reads its A
///        fragments), waits (counted: vmcnt from the schedule, lgkmcnt 0), barrier;
///   M_c: under s_setprio 1, multiplies cluster c = all its A atoms x B atoms 2c, 2c + 1, with the
///        next cluster's B fragments read from LDS between those MFMAs; barrier.
/// With 8 waves, waves 4..7 (the second wave of each SIMD) start one barrier late, so on every
/// SIMD one wave is in an M phase while the other is in an L phase (ping-pong); with 4 waves all
/// run in step. Load schedule of K tile s (what its L phases issue):
///   L_0: B part kClusters-1 of tile s+1;  L_c (c >= 1): A share of tile s+2, B part c-1 of tile
///   s+2
/// B part p = the rows cluster p reads (32 of each wave column: LdsLayoutB's slot order), so a part
/// is reloaded as soon as every wave has read it; A (read whole in L_0) is reloaded from L_1 on.
/// Each wave's vmcnt at the end of L_c leaves in flight exactly the loads issued after the last one
/// L_(c+1) and M_(c+1) read (vm_wait, from a simulation of this table; Cdna4Default: 9, 11, 10,
/// 9). Tiles past the last full K tile reload that one (never read), so the loop has no branch
/// and its last steps keep the counts; a partial last K tile (K % kBlockK != 0) runs after the loop
/// through the same loads, chunks past K outside the range and the chunk K falls in written byte
/// by byte. Through registers (kStaged), each load is written to LDS (ds_write_b128, behind
/// kStagedWriteVmcnt) just before the same load of the next K tile is issued into its registers:
/// tile s+1's bytes go into the stage tile s does not read; the L phases then wait for lgkmcnt 0.
///
/// MX-32 (E8M0 scales in the MFMA): each L phase first issues scale_loads(c) byte loads into
/// registers (buffer_load_ubyte), ahead of the MFMAs that use them: B cluster c-1's bytes of tile
/// s+1 (L_0: cluster kClusters-1's of tile s), one tile ahead; A's bytes are held twice, one copy
/// per half of the clusters, each reloaded as soon as its half has multiplied, half a tile ahead:
/// L_0 the second half's of tile s, L_(kClusters/2) the first half's of tile s+1. So no byte is
/// copied between registers and none is widened (the MFMA reads byte 0 of the load's 32-bit
/// register). They count in vmcnt, so the schedule counts them (vm_wait, and kStagedWriteVmcnt
/// through registers); the compiler waits for their values. With kLoadsInMPhase they stay in the
/// L phase, after the phase's tile loads (issued between M_(c-1)'s MFMAs).
///
/// Blockwise (K-blocked scales, promoted every K tile): each output atom's MFMAs of the tile start
/// from a zero accumulator (gfx950: the atom's only MFMA; gfx942: its kMmasPerAtom, back to back),
/// so their result is the tile's partial sum, promoted kPromoteLag atoms later, with no second
/// accumulator set. The tile's scales reach LDS by direct-to-LDS dword loads (one row of A, one
/// column of B per lane, one B load when a scale block spans the wave tile: kScaleLoads, last in
/// L_0 of the tile before, counted by the schedule; Cdna4KBlocked: 17, 20, 18, 11; through
/// registers, in kStagedWriteVmcnt and one vmcnt wait before L_0, counts_vm) and are read in L_0
/// of their tile (one ds_read_b128 per A atom, one for B when a scale block spans the wave tile).
/// With one B scale per wave tile (kFoldScales) the promotion is
///   d = fma(partial, s_a · s_b, d)   when every product s_a · s_b of the wave's rows is a normal
///                                     FP32 number (the wave's vote on the tile, arch::wave_all),
///   d += (partial · s_a) · s_b        otherwise (the whole tile),
/// with s_a · s_b formed once per tile and row (fold_products). The vote on tile s + 1 reads one
/// A scale per lane (the rows its scale loads brought) and the B scale at the start of M_last of
/// tile s and is taken between tiles: the folded loop runs while it holds; the rest of the range
/// runs in a second loop that applies it tile by tile without a branch (Promote::kSelected).
///
/// kWaitSlack (tests only; 0 otherwise): loads every counted vmcnt wait leaves in flight beyond the
/// schedule's count. tests/emulator/buffer_lds_test.cpp sets 1 and sees a wrong GEMM.
template <class PolicyT, class GranularityT, LayoutB kLayoutB, int kPromoteKV, int kWaitSlack = 0,
          class TileLoadT = arch::DefaultTileLoad<typename PolicyT::Arch>>
struct BufferLdsPingPongMainloop {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  using Accumulators = fp8gemm::Accumulators<Policy>;
  using Coords = ThreadCoords<Policy>;
  static_assert(
      BufferLdsPingPongSupports<Policy, Granularity, kLayoutB, kPromoteKV, TileLoadT>::value,
      "BufferLdsPingPongMainloop: CDNA, mk_nk_mn, 16x16x128 atoms with BlockK 128 "
      "(gfx950) or 16x16x32 atoms with BlockK 64 (gfx942), 4 or 8 waves, an even number "
      "of B atom pairs per wave, promotion once per K tile (K-blocked scales: whole K tiles per "
      "scale block; no hardware MX-32 with PromoteEvery), wave tiles of 32 rows or more on "
      "gfx950 (Blockwise: multiples of 64) (GemmConfig checks this first)");
  static constexpr int kStages = 2;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kWaves = Policy::kWaves;
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr int kMinBlocksPerSm = 1;       // occupancy hint: NVIDIA only
  static constexpr bool kPingPong = kWaves == 8;  // two waves per SIMD (waves w and w + 4)

  // ---- shape of one K tile ------------------------------------------------------------------
  static constexpr int kAtomsM = Policy::kAtomsM;
  static constexpr int kAtomsN = Policy::kAtomsN;
  static constexpr int kClusterAtomsN = 2;                    // B atoms per cluster
  static constexpr int kClusters = kAtomsN / kClusterAtomsN;  // phases per K tile
  static constexpr int kSlotBytes = Policy::kBlockK;          // one LDS row of BlockK fp8
  // One load instruction: 16 B per lane (gfx950 direct, or through registers: 1 KiB, 1024 /
  // kBlockK rows), 4 B with gfx942's direct loads (256 B, 4 rows).
  static constexpr bool kStaged = std::is_same_v<TileLoadT, arch::ThroughRegisters>;
  static constexpr int kLoadBytes =
      BufferLdsPingPongSupports<Policy, Granularity, kLayoutB, kPromoteKV, TileLoadT>::kLoadBytes;
  static constexpr int kWaveLoadBytes = kLoadBytes * kWaveSize;
  static constexpr int kSlotsPerWaveLoad = kWaveLoadBytes / kSlotBytes;
  static constexpr int kLanesPerSlot = kSlotBytes / kLoadBytes;  // lanes filling one row
  /// NOTE: with one wave per SIMD (4 waves, all in step) no other wave fills the matrix pipe during
  /// an L phase, so the loads of L_(c+1) go between the MFMAs of M_c instead (M_(kClusters-1):
  /// L_0 of the next tile), and the L phase keeps only its waits and barrier. Safe: what they
  /// overwrite was read before L_c's lgkmcnt(0) wait and barrier, which every wave has passed;
  /// program order, and so every counted vmcnt, is unchanged. With the ping-pong the late half
  /// waits for its reads one barrier later, so there the loads stay in the L phase. Every 4-wave
  /// config (gfx942; gfx950's Blockwise, Cdna4KBlocked: issue 11's share 0.518 -> 0.557 when
  /// measured).
  static constexpr bool kLoadsInMPhase = !kPingPong;
  // A lane's K bytes of one row per tile, in 16-byte reads (16 x lane / 16 + 64 x c): 2 on
  // gfx950; 1 on gfx942, where it feeds kMmasPerAtom MFMAs of 8 bytes.
  static constexpr int kReadsPerFragment = Policy::kBlockK / 64;
  static constexpr int kMmasPerAtom = Policy::kBlockK / Atom::kK;
  using FragTileA = arch::Fragment<16 * kReadsPerFragment>;  // Atom::FragA when kMmasPerAtom == 1
  using FragTileB = arch::Fragment<16 * kReadsPerFragment>;
  static_assert(sizeof(typename Atom::FragA) * kMmasPerAtom == sizeof(FragTileA) &&
                    sizeof(typename Atom::FragB) * kMmasPerAtom == sizeof(FragTileB),
                "a lane's tile bytes are its kMmasPerAtom fragments");

  // ---- accumulation (as LdsMultistageMainloop) ---------------------------------------------
  using Promotion = PromotionPlan<Policy, Granularity, kPromoteKV>;  // its register budget too
  static constexpr bool kHardwareMx = Promotion::kHardwareMx;
  static constexpr bool kKBlockedScales = Promotion::kKBlockedScales;
  static constexpr int kPromoteK = Promotion::kPromoteK;
  static constexpr bool kUsePartial = Promotion::kUsePartial;
  static constexpr int kMxBlocksPerTile = Policy::kBlockK / 32;  // E8M0 bytes per row and K tile

  using LdsLayoutA =
      XorSwizzledLayout<Policy::kBlockM, Policy::kBlockM, Policy::kBlockM, Policy::kBlockK>;
  using LdsLayoutB = XorSwizzledLayout<Policy::kBlockN, Policy::kWaveTileN, 32, Policy::kBlockK>;
  static_assert(LdsLayoutB::kSlotsPerPart * kClusters == Policy::kBlockN,
                "one B part per cluster: 32 rows of every wave column");
  /// Blockwise: each wave's scales of one K tile, one float per row (A) and column (B) of its
  /// wave tile.
  static constexpr int kScaleRowsA = kKBlockedScales ? Policy::kWaveTileM : 0;
  static constexpr int kScaleColsB = kKBlockedScales ? Policy::kWaveTileN : 0;
  static constexpr int kScaleFloats = kScaleRowsA + kScaleColsB;  // per wave and stage
  struct TileStorage {
    std::uint8_t a[kStages][LdsLayoutA::kBytes];  // [kBlockM][kBlockK] swizzled, per stage
    std::uint8_t b[kStages][LdsLayoutB::kBytes];  // [kBlockN][kBlockK] swizzled, per stage
  };
  struct ScaledTileStorage : TileStorage {
    // [stage][wave][kWaveTileM A rows, then kWaveTileN B columns] fp32 (a direct-to-LDS dword
    // per lane)
    float scales[kStages * kWaves * kScaleFloats];
  };
  using SharedStorage = std::conditional_t<kKBlockedScales, ScaledTileStorage, TileStorage>;
  static_assert(sizeof(SharedStorage) <= Arch::kLdsBytes,
                "the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages");

  /// Direct-to-LDS loads per thread: A tile, one B part.
  static constexpr int kLoadsA = Policy::kBlockM / kSlotsPerWaveLoad / kWaves;
  static constexpr int kLoadsBPart = LdsLayoutB::kSlotsPerPart / kSlotsPerWaveLoad / kWaves;
  static constexpr int kLoadsPerTile = kLoadsA + kClusters * kLoadsBPart;
  /// ds_read_b128 per cluster of B (2 atoms x kReadsPerFragment).
  static constexpr int kReadsBCluster = kClusterAtomsN * kReadsPerFragment;
  /// MFMAs per cluster, and the most loads one L phase issues (kLoadsInMPhase: more than
  /// kMfmasPerCluster - kReadsBCluster share MFMAs, load_slot).
  static constexpr int kMfmasPerCluster = kClusterAtomsN * kAtomsM * kMmasPerAtom;
  FP8GEMM_HOST_DEVICE static constexpr int most_phase_loads() {
    int most = 0;
    for (int c = 0; c < kClusters; ++c) most = phase_loads(c) > most ? phase_loads(c) : most;
    return most;
  }

  // ---- the load schedule and the waits it implies -------------------------------------------
  /// Phase (1 .. kClusters-1) in which A load j of tile s+2 is issued during tile s.
  FP8GEMM_HOST_DEVICE static constexpr int a_phase(int j) {
    return 1 + j * (kClusters - 1) / kLoadsA;
  }
  /// Load id: A load j -> j; B part p load q -> kLoadsA + p * kLoadsBPart + q.
  FP8GEMM_HOST_DEVICE static constexpr int b_id(int part, int q) {
    return kLoadsA + part * kLoadsBPart + q;
  }

  /// MX-32: the half of the clusters that cluster c is in; each half has its own copy of A's
  /// bytes (issue_phase_scale_loads).
  FP8GEMM_HOST_DEVICE static constexpr int mx_half(int c) { return c < kClusters / 2 ? 0 : 1; }
  /// MX-32: E8M0 byte loads into registers that L phase c issues before its tile loads
  /// (issue_phase_scale_loads): the bytes of one B cluster; in L_0 and L_(kClusters/2) also one
  /// copy of A's.
  FP8GEMM_HOST_DEVICE static constexpr int scale_loads(int c) {
    return kHardwareMx ? kClusterAtomsN + (c == 0 || c == kClusters / 2 ? kAtomsM : 0) : 0;
  }
  /// Blockwise: whether one B scale block spans the wave tile (one B scale per wave and tile).
  FP8GEMM_HOST_DEVICE static constexpr bool one_scale_b() {
    if constexpr (kKBlockedScales) {
      return Granularity::kBBlockN % Policy::kWaveTileN == 0;
    } else {
      return false;
    }
  }
  static constexpr bool kOneScaleB = one_scale_b();
  /// Blockwise with one B scale per wave tile: the two scales are folded into one multiplier per
  /// A row, s_a · s_b, formed once per K tile (fold_products), when the wave's products are all
  /// normal (see Promote). Otherwise (a B scale per B atom) the products would be one per output
  /// element, no fewer operations than scaling twice.
  static constexpr bool kFoldScales = kKBlockedScales && kOneScaleB;
  /// How a K tile's partial sums go into d (promote_atom):
  ///   kTwice:    d += (partial · s_a) · s_b (scale_twice);
  ///   kFolded:   d = fma(partial, s_a · s_b, d);
  ///   kSelected: d = fma(partial · m1, m2, d) with (m1, m2) = (1, s_a · s_b) or (s_a, s_b) for
  ///              the whole tile (select_scales): kFolded or the fallback, by a wave's vote,
  ///              without a branch.
  enum class Promote { kTwice, kFolded, kSelected };
  /// Promoting: how many atoms after its MFMAs an atom's partial sum is promoted (so the vector
  /// ALU reads a result the matrix pipe has finished; one partial-sum set per atom in flight).
  /// NOTE: measured (issue 11's steady-state share, docs/isa_report.md): 3 atoms. One MFMA per
  /// atom (gfx950, stand-in pricing): 3: 0.755 (262 registers), 2: 0.742, 4: 0.738 (267), 5: 0.755
  /// (279), 6: 0.732; 3 over 5 for 17 fewer registers (with the MFMAs written twice 4 led: 0.588,
  /// 3: 0.584); two (gfx942): 3: 0.700, 4: 0.698, 2: 0.683 (measured before Blockwise on gfx942
  /// reached 0.715; both pricings agree there).
  static constexpr int kPromoteLag = 3;
  static constexpr int kPartialSets = kPromoteLag + 1;  // partial sums in flight
  /// Outside the folded K loop: the tail tile and, after a failed vote, the rest of the range.
  static constexpr Promote kPromoteChosen = kFoldScales ? Promote::kSelected : Promote::kTwice;
  /// Blockwise: direct-to-LDS dword loads of the wave's scales of one K tile (a row of A or a
  /// column of B per lane; one load of B's when a scale block spans the wave tile), issued last in
  /// L_0 of the tile before (issue_scale_load).
  static constexpr int kScaleLoadsA = kScaleRowsA / kWaveSize;
  static constexpr int kScaleLoadsB = kOneScaleB ? 1 : kScaleColsB / kWaveSize;
  static constexpr int kScaleLoads = kScaleLoadsA + kScaleLoadsB;
  /// Blockwise, folded: the vote reads the A scales of the rows each lane loaded (row
  /// 64h + lane of the wave tile, h < kScaleLoadsA: every row of the wave once) and the B
  /// scale, 4 bytes each (read_vote_scales).
  static constexpr int kVoteReadBytes = kFoldScales ? 4 * (kScaleLoadsA + 1) : 0;
  static_assert(kScaleRowsA % kWaveSize == 0 && kScaleColsB % kWaveSize == 0,
                "Blockwise: whole wave loads of scale rows and columns");
  /// Blockwise: LDS bytes one lane reads for a tile's scales (read_block_scales).
  static constexpr int kScaleReadBytes = kKBlockedScales ? kAtomsM * 16 +
                                                               (kFoldScales  ? 0
                                                                : kOneScaleB ? 16
                                                                             : kAtomsN * 4) +
                                                               kVoteReadBytes
                                                         : 0;
  /// Vector-memory loads one K tile issues besides its kLoadsPerTile tile loads: MX-32's E8M0
  /// byte loads (scale_loads(c) per phase) and Blockwise's direct-to-LDS scale loads
  /// (kScaleLoads, last in L_0).
  FP8GEMM_HOST_DEVICE static constexpr int scale_loads_per_tile() {
    int n = kScaleLoads;
    for (int c = 0; c < kClusters; ++c) n += scale_loads(c);
    return n;
  }
  /// kStaged: the loads in flight when a staged load is written to LDS, one K tile after it was
  /// issued: every other load of one tile's schedule, its kLoadsPerTile - 1 other tile loads and
  /// its scale_loads_per_tile() scale loads (MX-32 bytes, Blockwise LDS scales; every load is
  /// issued once per tile, in order, and written just before the same load of the next tile
  /// reuses its registers).
  static constexpr int kStagedWriteVmcnt = kLoadsPerTile - 1 + scale_loads_per_tile();

  struct Schedule {
    static constexpr int kSteps = 8;  // simulated tiles; waits are read at a steady one
    static constexpr int kTiles = kSteps + 2;
    int pos[kTiles][kLoadsPerTile] = {};     // issue index of (tile, id); -1: not issued
    int scale_pos[kTiles];                   // Blockwise: the last A scale load of the tile
    int issued_end[kSteps][kClusters] = {};  // loads issued by the end of phase (step, c)
  };
  FP8GEMM_HOST_DEVICE static constexpr Schedule simulate() {
    Schedule sch{};
    for (int t = 0; t < Schedule::kTiles; ++t) {
      for (int id = 0; id < kLoadsPerTile; ++id) sch.pos[t][id] = -1;
      sch.scale_pos[t] = -1;
    }
    int n = 0;
    for (int s = 0; s < Schedule::kSteps; ++s) {
      for (int c = 0; c < kClusters; ++c) {
        // MX-32 bytes: first in the phase; kLoadsInMPhase: after its tile loads, which M_(c-1)
        // issued. Never read from LDS.
        if (!kLoadsInMPhase) n += scale_loads(c);
        if (c == 0) {
          for (int q = 0; q < kLoadsBPart; ++q) sch.pos[s + 1][b_id(kClusters - 1, q)] = n++;
          if (kScaleLoads > 0) {  // last in L_0: tile s+1's scales
            n += kScaleLoads;
            sch.scale_pos[s + 1] = n - 1;
          }
        } else {
          for (int j = 0; j < kLoadsA; ++j)
            if (a_phase(j) == c) sch.pos[s + 2][j] = n++;
          for (int q = 0; q < kLoadsBPart; ++q) sch.pos[s + 2][b_id(c - 1, q)] = n++;
        }
        if (kLoadsInMPhase) n += scale_loads(c);
        sch.issued_end[s][c] = n;
      }
    }
    return sch;
  }
  /// The latest issue index among the loads phase c of tile s reads from LDS that a vmcnt wait
  /// covers (kStaged: the Blockwise scales only; the tile loads land by their ds_writes, after
  /// kStagedWriteVmcnt). -1: none.
  FP8GEMM_HOST_DEVICE static constexpr int last_needed(Schedule const& sch, int s, int c) {
    int last = -1;
    auto need = [&](int tile, int id) {
      if (!kStaged) last = sch.pos[tile][id] > last ? sch.pos[tile][id] : last;
    };
    if (c == 0) {
      for (int j = 0; j < kLoadsA; ++j) need(s, j);              // A of tile s
      last = sch.scale_pos[s] > last ? sch.scale_pos[s] : last;  // and its A scales
    }
    int const part = c + 1 < kClusters ? c + 1 : 0;
    int const tile = c + 1 < kClusters ? s : s + 1;  // the last phase reads the next tile's part 0
    for (int q = 0; q < kLoadsBPart; ++q) need(tile, b_id(part, q));
    return last;
  }
  /// vmcnt at the end of L_c: the loads issued after the last one the next L phase reads.
  FP8GEMM_HOST_DEVICE static constexpr int vm_wait(int c) {
    Schedule const sch = simulate();
    constexpr int kSteady = 4;
    int const next_s = c + 1 < kClusters ? kSteady : kSteady + 1;
    int const next_c = (c + 1) % kClusters;
    return sch.issued_end[kSteady][c] - 1 - last_needed(sch, next_s, next_c);
  }
  /// Whether the wait at the end of L_c counts vector-memory loads at all (kStaged: only where
  /// the next phase reads the Blockwise scales, L_(kClusters-1)).
  FP8GEMM_HOST_DEVICE static constexpr bool counts_vm(int c) {
    Schedule const sch = simulate();
    return last_needed(sch, c + 1 < kClusters ? 4 : 5, (c + 1) % kClusters) >= 0;
  }
  /// vmcnt at the end of the prologue (steps -2 and -1 issued): all of tile 0 landed.
  FP8GEMM_HOST_DEVICE static constexpr int prologue_vm_wait() {
    Schedule const sch = simulate();
    int last = -1;
    for (int id = 0; id < kLoadsPerTile && !kStaged; ++id)
      last = sch.pos[2][id] > last ? sch.pos[2][id] : last;
    last = sch.scale_pos[2] > last ? sch.scale_pos[2] : last;
    // tile 2 of the simulation = tile 0; kLoadsInMPhase: L_0 of tile 0 is issued before it too
    return sch.issued_end[1][kClusters - 1] - 1 - last + (kLoadsInMPhase ? phase_loads(0) : 0);
  }
  template <int c>
  static constexpr int kVmWait = vm_wait(c);
  /// LDS bytes the loads of a range of `full` K tiles write, per operand: tiles 0 .. full + 1 of
  /// A; of B tiles 0 .. full and the parts 0 .. kClusters-2 of tile full + 1. The tiles past the
  /// end reload the last one (L2-resident): they keep the schedule, and so the counted waits, the
  /// same in the last steps as in the steady state.
  FP8GEMM_HOST_DEVICE static constexpr std::int64_t loaded_bytes_a(int full) {
    // kStaged: the loads of tiles full + 1 (and part of full + 2) stay in registers
    return std::int64_t(kStaged ? full + 1 : full + 2) * LdsLayoutA::kBytes;
  }
  FP8GEMM_HOST_DEVICE static constexpr std::int64_t loaded_bytes_b(int full) {
    if constexpr (kStaged) return std::int64_t(full + 1) * LdsLayoutB::kBytes;
    return std::int64_t(full + 1) * LdsLayoutB::kBytes +
           std::int64_t(kLoadsInMPhase ? kClusters : kClusters - 1) * LdsLayoutB::kSlotsPerPart *
               kSlotBytes;
  }
  static_assert(kReadsBCluster <= kClusterAtomsN * kAtomsM * kMmasPerAtom,
                "the next cluster's reads go between this cluster's MFMAs: at most one per MFMA");
  static_assert(vm_wait(0) >= 0 && vm_wait(kClusters - 1) >= 0,
                "load schedule: a phase reads LDS before its loads are issued");

  struct Arguments {
    MatrixView<ElementA> a;
    MatrixView<ElementB> b;  // [N, K]
    ScaleView<Granularity> scale_a;
    ScaleView<Granularity> scale_b;
  };

  /// What this mainloop needs of its arguments (host side); the message names the failed check.
  static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    if (args.a.data == nullptr) return fail(StatusCode::kErrorNullPointer, "A is null");
    if (args.b.data == nullptr) return fail(StatusCode::kErrorNullPointer, "B is null");
    if (args.a.ld < args.a.cols)
      return fail(StatusCode::kErrorLeadingDimension, "lda (" + std::to_string(args.a.ld) +
                                                          ") must be >= K (" +
                                                          std::to_string(args.a.cols) + ")");
    if (args.b.ld < args.b.cols)
      return fail(StatusCode::kErrorLeadingDimension,
                  "ldb (" + std::to_string(args.b.ld) + ") must be >= K (" +
                      std::to_string(args.b.cols) + ") for mk_nk_mn");
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.a.data, 16, "A", "16-byte vector loads"));
    if (args.a.ld % 16 != 0)
      return fail(StatusCode::kErrorMisaligned,
                  "lda must be a multiple of 16 (16-byte vector loads of every row); got lda=" +
                      std::to_string(args.a.ld) + ": pad the leading dimension");
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.b.data, 16, "B", "16-byte vector loads"));
    if (args.b.ld % 16 != 0)
      return fail(StatusCode::kErrorMisaligned,
                  "ldb must be a multiple of 16 (16-byte vector loads of every row); got ldb=" +
                      std::to_string(args.b.ld) + ": pad the leading dimension");
    // Buffer offsets are 32-bit: a block tile's rows, from its first row, must stay below 2^31.
    constexpr std::int64_t kMaxRange = 2147483647;
    if (args.a.ld * Policy::kBlockM > kMaxRange)
      return fail(StatusCode::kErrorLeadingDimension,
                  "lda * " + std::to_string(Policy::kBlockM) +
                      " must be below 2^31 (32-bit buffer offsets of one block tile); got lda=" +
                      std::to_string(args.a.ld));
    if (args.b.ld * Policy::kBlockN > kMaxRange)
      return fail(StatusCode::kErrorLeadingDimension,
                  "ldb * " + std::to_string(Policy::kBlockN) +
                      " must be below 2^31 (32-bit buffer offsets of one block tile); got ldb=" +
                      std::to_string(args.b.ld));
    if constexpr (kHardwareMx) {
      // The E8M0 bytes are read through one buffer range per operand: 32-bit offsets.
      std::int64_t const a_bytes = std::int64_t{args.scale_a.extent} * args.scale_a.cols;
      std::int64_t const b_bytes = std::int64_t{args.scale_b.extent} * args.scale_b.cols;
      if (a_bytes > kMaxRange || b_bytes > kMaxRange)
        return fail(StatusCode::kErrorInvalidSize,
                    "MX-32 scales: this kernel reads each E8M0 array with 32-bit offsets, and A's "
                    "has " +
                        std::to_string(a_bytes) + ", B's " + std::to_string(b_bytes) +
                        " bytes (at most 2^31 - 1 each): split the GEMM along M or N");
    }
    return Status::success();
  }

  /// acc += A[m0:, k_tiles] * B[k_tiles, n0:] for K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE void operator()(Arguments const& args, int m0, int n0, int k_tile_begin,
                                 int k_tile_end, SharedStorage& lds, Accumulators& acc) const {
    Coords const tc = Coords::current();
    int const wave = arch::wave_index_uniform(kWaveSize);
    int const num_tiles = k_tile_end - k_tile_begin;
    if (num_tiles <= 0) return;
    int const k_total = args.a.cols;
    // K tiles entirely inside K run the pipelined loop; a partial last one runs after it.
    int full = k_total / Policy::kBlockK - k_tile_begin;
    full = full < 0 ? 0 : (full > num_tiles ? num_tiles : full);
    run(args, m0, n0, k_tile_begin, num_tiles, full, lds, tc, wave, acc);
  }

 private:
  /// The K loop. Promoting (kUsePartial), each output atom's MFMAs of a K tile start from a zero
  /// accumulator (one on gfx950's 16x16x128 with BlockK 128, kMmasPerAtom on gfx942), so their
  /// result is the tile's partial sum, promoted into d one MFMA later (mma_cluster_reading_next;
  /// the tail at once, mma_atom): no second accumulator set.
  FP8GEMM_DEVICE static void run(Arguments const& args, int m0, int n0, int k_tile_begin,
                                 int num_tiles, int full, SharedStorage& lds, Coords const& tc,
                                 int wave, Accumulators& d) {
    if (full > 0) {
      Operands const ops = Operands::make(args, m0, n0, k_tile_begin, full, wave, tc.lane);
      ReadBase const rb = read_base(tc.lane, tc.wave_m, tc.wave_n);
      Fragments f;
      // Prologue: the loads of tiles -2 and -1's phases (tile 0 and most of tile 1), all of
      // tile 0 landed, B part 0 of tile 0 read.
      for (int s = -2; s < 0; ++s) issue_step_loads(ops, lds, s, f);
      if constexpr (kLoadsInMPhase)
        issue_phase_loads<0, /*kPrologue=*/true>(ops, lds, 0, f);  // M_(-1)'s share
      if constexpr (kStaged) {
        arch::wait_lgkmcnt<0>();  // waits for: this thread's writes of tile 0
        if constexpr (kScaleLoads > 0)
          arch::wait_vmcnt<prologue_vm_wait() + kWaitSlack>();  // and its Blockwise scales
      } else {
        arch::wait_vmcnt<prologue_vm_wait() + kWaitSlack>();
      }
      arch::barrier_without_fence();  // waits for: tile 0 in LDS from every wave
      if constexpr (kFoldScales) read_vote_scales(f.scales, lds, ops, tc, 0);  // tile 0's vote
      read_b_cluster<0>(f.b[0], read_address(lds, rb, 0));
      if constexpr (kPingPong) {
        // The second wave of each SIMD starts one barrier late (see the struct comment).
        if (wave >= kWaves / 2) arch::barrier_without_fence();  // waits for: the other half
      }
      if constexpr (kFoldScales) {
        // The folded K loop runs while the wave's vote of the next tile holds (every product
        // s_a · s_b of its rows normal, decided between tiles); from the first tile where it does
        // not, the rest of the range runs in a second loop that applies the same vote tile by
        // tile without a branch (kSelected: two operations per element).
        // NOTE: a branch between the two promotions inside one loop would put the fallback's
        // longer body on every trip; a loop left in the middle of a tile made the register
        // allocator copy the accumulators between the register files on every trip.
        // waits for: the vote's scale reads (the next cluster's kReadsBCluster B reads, issued
        // after them, may stay in flight)
        arch::wait_lgkmcnt<kReadsBCluster>();
        int s = 0;
        // fold: the next tile exists and the wave's vote on it holds (one branch per trip)
        bool fold = vote(f.scales, s < full);
        while (fold) {
          load_phase<0>(ops, lds, s, tc, rb, f);
          fold_products(f.scales);
          multiply_phases<0, Promote::kFolded>(args, ops, lds, s, m0, n0, tc, rb, f, d);
          arch::wait_lgkmcnt<kReadsBCluster>();  // waits for: the next tile's vote reads (M_last)
          fold = vote(f.scales, ++s < full);
        }
        for (; s < full; ++s) {
          load_phase<0>(ops, lds, s, tc, rb, f);
          fold_products(f.scales);
          select_scales(f.scales, fold);
          multiply_phases<0, Promote::kSelected>(args, ops, lds, s, m0, n0, tc, rb, f, d);
          arch::wait_lgkmcnt<kReadsBCluster>();  // waits for: the next tile's vote reads (M_last)
          fold = vote(f.scales);
        }
      } else {
        for (int s = 0; s < full; ++s) {
          load_phase<0>(ops, lds, s, tc, rb, f);
          multiply_phases<0, Promote::kTwice>(args, ops, lds, s, m0, n0, tc, rb, f, d);
        }
      }
      // NOTE: the last cluster's reads of the next tile (never multiplied) are still in flight,
      // and the compiler does not know it (lds_read16_counted): their registers must not be
      // reused before they land.
      arch::wait_lgkmcnt<0>();  // waits for: this wave's LDS reads
      if constexpr (kPingPong) {
        if (wave < kWaves / 2) arch::barrier_without_fence();  // waits for: the other half
      }
      arch::wait_vmcnt<0>();  // the loads of tiles past the end (reloads) have landed
      arch::sync_block();     // waits for: every wave done with LDS before the tail reuses it
    }
    if (full < num_tiles) tail_tile(args, m0, n0, k_tile_begin, full, lds, tc, wave, d);
  }

  /// Per thread: where its loads go in LDS and come from in global memory.
  struct Operands {
    arch::BufferRange a;  // A rows [m0, m0 + valid) from k of tile 0: rows past M read as zero
    arch::BufferRange b;  // B rows [n0, n0 + valid)
    int full;             // tiles with data; later ones reload the last full tile (never read)
    int k_tile_begin;
    int wave;
    int lane;
    std::uint32_t voff_a[kLoadsA];                 // row * lda + 16 * chunk, per A load
    std::uint32_t voff_b[kClusters][kLoadsBPart];  // per B part and load
    // MX-32 in hardware: the index of this lane's E8M0 byte of K tile 0 per A / B atom, row *
    // cols + lane / kM (the MX block of the atom's K the lane's byte scales). Rows past M / N
    // take the last row's byte: they only scale accumulator rows (columns) that are never stored.
    std::uint32_t mx_a[kHardwareMx ? kAtomsM : 1];
    std::uint32_t mx_b[kHardwareMx ? kAtomsN : 1];
    arch::BufferRange mx_a_range;  // MX-32: the E8M0 bytes of A, [extent][cols]
    arch::BufferRange mx_b_range;
    // Blockwise: the A scales ([row blocks][cols] fp32) and the byte offset of the K-block-0 scale
    // of row 64h + lane of the wave tile per scale load h (rows past M: the last row's).
    arch::BufferRange sc_a_range;
    std::uint32_t sc_a_voff[kScaleLoadsA > 0 ? kScaleLoadsA : 1];
    arch::BufferRange sc_b_range;  // the same for B's columns
    std::uint32_t sc_b_voff[kScaleLoadsB > 0 ? kScaleLoadsB : 1];

    FP8GEMM_DEVICE static Operands make(Arguments const& args, int m0, int n0, int k_tile_begin,
                                        int full, int wave, int lane) {
      Operands o{};
      std::int64_t const k0 = std::int64_t(k_tile_begin) * Policy::kBlockK;
      int const a_rows = args.a.rows - m0 < Policy::kBlockM ? args.a.rows - m0 : Policy::kBlockM;
      int const b_rows = args.b.rows - n0 < Policy::kBlockN ? args.b.rows - n0 : Policy::kBlockN;
      // num_records = valid rows * ld: a row's loads (voffset = row * ld + 16 * chunk, the K
      // offset in soffset, outside the check) are in range exactly when the row is valid.
      o.a = {reinterpret_cast<std::uint8_t const*>(args.a.data) + m0 * args.a.ld + k0,
             static_cast<std::uint32_t>(a_rows * args.a.ld)};
      o.b = {reinterpret_cast<std::uint8_t const*>(args.b.data) + n0 * args.b.ld + k0,
             static_cast<std::uint32_t>(b_rows * args.b.ld)};
      o.full = full;
      o.k_tile_begin = k_tile_begin;
      o.wave = wave;
      o.lane = lane;
      // Lane l of a load fills kLoadBytes of its wave's block: slot s0 + l / kLanesPerSlot, byte
      // x = kLoadBytes * (l % kLanesPerSlot) of it, in stored chunk x / 16, which holds logical
      // chunk (x / 16) ^ swizzle(slot) of the slot's row.
      FP8GEMM_UNROLL
      for (int j = 0; j < kLoadsA; ++j) {
        int const s = a_slot0(j, wave) + lane / kLanesPerSlot;
        o.voff_a[j] = static_cast<std::uint32_t>(LdsLayoutA::row_of_slot(s) * args.a.ld +
                                                 load_k<LdsLayoutA>(s, lane));
      }
      FP8GEMM_UNROLL
      for (int p = 0; p < kClusters; ++p) {
        FP8GEMM_UNROLL
        for (int q = 0; q < kLoadsBPart; ++q) {
          int const s = b_slot0(p, q, wave) + lane / kLanesPerSlot;
          o.voff_b[p][q] = static_cast<std::uint32_t>(LdsLayoutB::row_of_slot(s) * args.b.ld +
                                                      load_k<LdsLayoutB>(s, lane));
        }
      }
      if constexpr (kHardwareMx) {
        auto range = [](ScaleView<Granularity> const& v) {
          return arch::BufferRange{reinterpret_cast<std::uint8_t const*>(v.data),
                                   static_cast<std::uint32_t>(v.extent * v.cols)};
        };
        o.mx_a_range = range(args.scale_a);
        o.mx_b_range = range(args.scale_b);
        int const wm = wave / Policy::kWavesN, wn = wave % Policy::kWavesN;
        FP8GEMM_UNROLL
        for (int i = 0; i < kAtomsM; ++i) {
          int row = m0 + wm * Policy::kWaveTileM + i * Atom::kM + lane % Atom::kM;
          row = row < args.scale_a.extent ? row : args.scale_a.extent - 1;
          o.mx_a[i] = static_cast<std::uint32_t>(row * args.scale_a.cols + lane / Atom::kM);
        }
        FP8GEMM_UNROLL
        for (int j = 0; j < kAtomsN; ++j) {
          int row = n0 + wn * Policy::kWaveTileN + j * Atom::kN + lane % Atom::kN;
          row = row < args.scale_b.extent ? row : args.scale_b.extent - 1;
          o.mx_b[j] = static_cast<std::uint32_t>(row * args.scale_b.cols + lane / Atom::kN);
        }
      }
      if constexpr (kKBlockedScales) {
        // Operand rows [first, first + count) of a wave tile, one per lane and load.
        // The range starts at the wave tile's first row block and ends at its last (offsets
        // stay 32-bit whatever the size of the scale array).
        auto scale_loads = [lane](ScaleView<Granularity> const& v, int rows_per_block, int first,
                                  arch::BufferRange& range, auto& voff) {
          constexpr int kLoads = static_cast<int>(sizeof(voff) / sizeof(voff[0]));
          auto clamp = [&v](int row) { return row < v.extent ? row : v.extent - 1; };
          int const block0 = clamp(first) / rows_per_block;
          int const blocks = clamp(first + kLoads * kWaveSize - 1) / rows_per_block - block0 + 1;
          range = {reinterpret_cast<std::uint8_t const*>(v.data + block0 * v.cols),
                   static_cast<std::uint32_t>(blocks * v.cols * 4)};
          FP8GEMM_UNROLL
          for (int h = 0; h < kLoads; ++h) {
            int const block = clamp(first + h * kWaveSize + lane) / rows_per_block;
            voff[h] = static_cast<std::uint32_t>((block - block0) * v.cols * 4);
          }
        };
        int const wm = wave / Policy::kWavesN, wn = wave % Policy::kWavesN;
        scale_loads(args.scale_a, Granularity::kABlockM, m0 + wm * Policy::kWaveTileM, o.sc_a_range,
                    o.sc_a_voff);
        scale_loads(args.scale_b, Granularity::kBBlockN, n0 + wn * Policy::kWaveTileN, o.sc_b_range,
                    o.sc_b_voff);
      }
      return o;
    }
    /// Blockwise: soffset of the A scales of K tile t (clamped as mx_offset).
    FP8GEMM_DEVICE std::uint32_t scale_offset(int t) const {
      int const clamped = t < 0 ? 0 : (t < full ? t : full - 1);
      return static_cast<std::uint32_t>(
          4 * ((k_tile_begin + clamped) * Policy::kBlockK / Granularity::kBlockK));
    }
    /// soffset of K tile t: its k from tile 0. Tiles past the last full one (loaded to keep the
    /// schedule's counts, never read) reload it, so no load reads past K.
    FP8GEMM_DEVICE std::uint32_t k_offset(int t) const {
      return static_cast<std::uint32_t>(t < full ? t : full - 1) * Policy::kBlockK;
    }
    /// soffset of the E8M0 bytes of K tile t (kMxBlocksPerTile per row and tile); tiles before the
    /// first (the prologue's) and past the last full one read the nearest full tile's.
    FP8GEMM_DEVICE std::uint32_t mx_offset(int t) const {
      int const clamped = t < 0 ? 0 : (t < full ? t : full - 1);
      return static_cast<std::uint32_t>(kMxBlocksPerTile * (k_tile_begin + clamped));
    }
  };

  /// The k (in the row) of the bytes lane `lane` loads into slot s (see Operands::make).
  template <class Layout>
  FP8GEMM_HOST_DEVICE static constexpr int load_k(int s, int lane) {
    int const x = kLoadBytes * (lane % kLanesPerSlot);  // byte in the slot
    return 16 * ((x / 16) ^ Layout::swizzle(s)) + x % 16;
  }
  /// First slot (LDS row) of A load j / B part p load q of wave `wave`: kSlotsPerWaveLoad rows
  /// per wave load.
  FP8GEMM_HOST_DEVICE static constexpr int a_slot0(int j, int wave) {
    return (j * kWaves + wave) * kSlotsPerWaveLoad;
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_slot0(int p, int q, int wave) {
    return p * LdsLayoutB::kSlotsPerPart + (q * kWaves + wave) * kSlotsPerWaveLoad;
  }

  /// K-blocked scales of one K tile per accumulator row (A) / column (B) register.
  struct BlockScales {
    float a[kKBlockedScales ? kAtomsM : 1][Atom::kCRegs];  // s_a (kSelected: m1)
    float b[kKBlockedScales ? kAtomsN : 1][Atom::kCRegs];  // s_b
    float ab[kFoldScales ? kAtomsM : 1][Atom::kCRegs];     // s_a · s_b (kSelected: m2)
    float vote_a[kFoldScales ? kScaleLoadsA : 1];  // next tile: s_a of rows 64h + lane (vote)
    float vote_b;                                  // next tile: the wave tile's s_b (vote)
  };

  /// This thread's fragments: A (all atoms of the wave tile, one K tile) and two B clusters.
  struct Fragments {
    FragTileA a[kAtomsM];
    FragTileB b[2][kClusterAtomsN];  // [cluster % 2][atom in cluster]
    // MX-32: this lane's E8M0 bytes (each in bits 7..0 of its buffer_load_ubyte's register) of A
    // per half of the clusters (mx_half) and atom, and of B per atom: cluster c's are reloaded for
    // the next tile once cluster c has multiplied. NOTE: one register per load, never copied (a
    // copy at the end of the trip would wait for loads the trip has just issued).
    std::uint32_t sa[2][kAtomsM];
    std::uint32_t sb[kAtomsN];
    BlockScales scales;  // K-blocked scales of the tile in flight
    // promoting: the last kPartialSets atoms' results (one K tile each)
    float partial[kPartialSets][Atom::kCRegs];
    // kStaged: load n of phase c of the last tile issued, 16 bytes, until its ds_write a tile later
    arch::Vec<16> staged[kStaged ? kClusters : 1][kStaged ? kLoadsA + kLoadsBPart : 1];
  };

  /// Loads L phase c issues: c = 0 a B part, then (Blockwise) the next tile's kScaleLoads scale
  /// loads; c >= 1 the A loads of phase c, then a B part.
  FP8GEMM_HOST_DEVICE static constexpr int a_loads_in_phase(int c) {
    int n = 0;
    for (int j = 0; j < kLoadsA; ++j) n += c > 0 && a_phase(j) == c;
    return n;
  }
  FP8GEMM_HOST_DEVICE static constexpr int phase_tile_loads(int c) {
    return a_loads_in_phase(c) + kLoadsBPart;
  }
  FP8GEMM_HOST_DEVICE static constexpr int phase_loads(int c) {
    return phase_tile_loads(c) + (c == 0 ? kScaleLoads : 0);
  }
  /// The A load (j) of phase c's n-th load, n < a_loads_in_phase(c).
  FP8GEMM_HOST_DEVICE static constexpr int nth_a_load(int c, int n) {
    for (int j = 0; j < kLoadsA; ++j)
      if (a_phase(j) == c && n-- == 0) return j;
    return -1;
  }
  /// Load n of L phase c of tile s (the schedule in the struct comment): its K tile t, source
  /// (range, voffset, soffset) and LDS destination (the wave's block in stage t % 2), handed to
  /// op(range, lds_wave, voffset, soffset, t).
  template <int c, int n, class Op>
  FP8GEMM_DEVICE static void phase_load(Operands const& ops, SharedStorage& lds, int s, Op&& op) {
    constexpr int kA = a_loads_in_phase(c);
    int const t = c == 0 ? s + 1 : s + 2;
    std::uint32_t const k = ops.k_offset(t);
    if constexpr (n < kA) {
      constexpr int j = nth_a_load(c, n);
      op(ops.a, lds.a[t & 1] + a_slot0(j, ops.wave) * kSlotBytes, ops.voff_a[j], k, t);
    } else {
      constexpr int p = c == 0 ? kClusters - 1 : c - 1, q = n - kA;
      op(ops.b, lds.b[t & 1] + b_slot0(p, q, ops.wave) * kSlotBytes, ops.voff_b[p][q], k, t);
    }
  }
  /// One tile load landing in LDS without a counted wait: direct, or through registers with the
  /// ds_write at once (the compiler waits for the registers).
  FP8GEMM_DEVICE static void load_now(arch::BufferRange const& r, std::uint8_t* lds_wave,
                                      std::uint32_t voffset, std::uint32_t soffset, int lane) {
    if constexpr (kStaged) {
      arch::lds_store<16>(lds_wave, 16 * lane, arch::buffer_load16(r, voffset, soffset));
    } else {
      arch::buffer_load_lds<kLoadBytes>(r, lds_wave, voffset, soffset);
    }
  }
  /// Load n of L phase c of tile s: direct-to-LDS; through registers into f.staged (the prologue:
  /// tile 0 straight into LDS).
  /// kPrologue (kStaged): the staged loads keep the schedule's order (a scheduling fence after
  /// each): kStagedWriteVmcnt counts the loads issued after each one from its issue on, and the
  /// loop's first ds_writes take the compiler's count from the prologue's order (issued A, A, B,
  /// B instead of A, B, A, B, one write came out vmcnt(kStagedWriteVmcnt - 1)).
  template <int c, int n, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_load(Operands const& ops, SharedStorage& lds, int s,
                                              Fragments& f) {
    if constexpr (n >= phase_tile_loads(c)) {
      issue_scale_load<n - phase_tile_loads(c)>(ops, lds, s);  // Blockwise, last in L_0
      return;
    } else {
      phase_load<c, n>(ops, lds, s,
                       [&](arch::BufferRange const& r, std::uint8_t* dst, std::uint32_t voffset,
                           std::uint32_t soffset, int t) {
                         if constexpr (kStaged) {
                           if (t == 0) {
                             load_now(r, dst, voffset, soffset, ops.lane);
                           } else {
                             f.staged[c][n] = arch::buffer_load16_counted(r, voffset, soffset);
                             if constexpr (kPrologue) arch::schedule_fence();
                           }
                         } else {
                           arch::buffer_load_lds<kLoadBytes>(r, dst, voffset, soffset);
                         }
                       });
    }
  }
  /// Blockwise: scale load h of L_0 of tile s, the scales of tile t = s + 1 into stage t % 2 of
  /// the wave's lds.scales (read in L_0 of tile t): A rows 64h + lane of the wave tile (h <
  /// kScaleLoadsA), then its B columns. Direct-to-LDS dwords, also where the tiles go through
  /// registers.
  template <int h>
  FP8GEMM_DEVICE static void issue_scale_load(Operands const& ops, SharedStorage& lds, int s) {
    if constexpr (kKBlockedScales) {
      // kStaged: the compiler would move it above the tile load before it, off the schedule that
      // kStagedWriteVmcnt counts
      if constexpr (kStaged) arch::schedule_fence();
      int const t = s + 1;
      float* const dst = lds.scales + scale_slot(t & 1, ops.wave);
      if constexpr (h < kScaleLoadsA) {
        arch::buffer_load_lds4(ops.sc_a_range, reinterpret_cast<std::uint8_t*>(dst + h * kWaveSize),
                               ops.sc_a_voff[h], ops.scale_offset(t));
      } else {
        constexpr int hb = h - kScaleLoadsA;
        arch::buffer_load_lds4(ops.sc_b_range,
                               reinterpret_cast<std::uint8_t*>(dst + kScaleRowsA + hb * kWaveSize),
                               ops.sc_b_voff[hb], ops.scale_offset(t));
      }
    } else {
      (void)ops, (void)lds, (void)s;
    }
  }
  /// kStaged: writes f.staged[c][n] (load n of phase c of tile s - 1: K tile t - 1) to its place
  /// in LDS, before the same load of tile s reuses the registers.
  template <int c, int n>
  FP8GEMM_DEVICE static void write_staged(Operands const& ops, SharedStorage& lds, int s,
                                          Fragments const& f) {
    if constexpr (n < phase_tile_loads(c))  // the Blockwise scale loads go straight to LDS
      phase_load<c, n>(
          ops, lds, s - 1,
          [&](arch::BufferRange const&, std::uint8_t* dst, std::uint32_t, std::uint32_t, int) {
            // waits for: this load of the previous tile (kStagedWriteVmcnt)
            arch::wait_vmcnt_visible<kStagedWriteVmcnt>();
            if constexpr (kScaleLoads > 0) {  // not behind the compiler's vmcnt(0) for the scales
              arch::lds_write16_counted(dst, 16 * ops.lane, f.staged[c][n]);
            } else {
              arch::lds_store<16>(dst, 16 * ops.lane, f.staged[c][n]);
            }
          });
  }
  /// kLoadsInMPhase: loads [n, end) of L phase c of tile s, after one MFMA of M_(c-1) (each
  /// staged load first writes the previous tile's registers of the same load to LDS).
  template <int c, int n, int end>
  FP8GEMM_DEVICE static void issue_phase_loads_in_m(Operands const& ops, SharedStorage& lds, int s,
                                                    Fragments& f) {
    if constexpr (kStaged) write_staged<c, n>(ops, lds, s, f);
    issue_phase_load<c, n>(ops, lds, s, f);
    if constexpr (n + 1 < end) issue_phase_loads_in_m<c, n + 1, end>(ops, lds, s, f);
  }
  template <int c, bool kPrologue, int n = 0>
  FP8GEMM_DEVICE static void issue_phase_loads_from(Operands const& ops, SharedStorage& lds, int s,
                                                    Fragments& f) {
    issue_phase_load<c, n, kPrologue>(ops, lds, s, f);
    if constexpr (n + 1 < phase_loads(c))
      issue_phase_loads_from<c, kPrologue, n + 1>(ops, lds, s, f);
  }
  /// The loads of L phase c of tile s (none for tiles before 0: the prologue).
  template <int c, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_loads(Operands const& ops, SharedStorage& lds, int s,
                                               Fragments& f) {
    if ((c == 0 ? s + 1 : s + 2) >= 0) issue_phase_loads_from<c, kPrologue>(ops, lds, s, f);
  }
  /// The prologue: L phases of tile s without waits, the same loads as in the loop (so every count
  /// of the schedule holds from tile 0 on; kLoadsInMPhase: L_0's tile loads of tile 0 follow).
  template <int c = 0>
  FP8GEMM_DEVICE static void issue_step_loads(Operands const& ops, SharedStorage& lds, int s,
                                              Fragments& f) {
    if constexpr (kLoadsInMPhase) {  // the loop's order: a phase's tile loads, then its bytes
      issue_phase_loads<c, /*kPrologue=*/true>(ops, lds, s, f);
      issue_phase_scale_loads<c, /*kPrologue=*/true>(f, ops, s);
    } else {
      issue_phase_scale_loads<c, /*kPrologue=*/true>(f, ops, s);
      issue_phase_loads<c, /*kPrologue=*/true>(ops, lds, s, f);
    }
    if constexpr (c + 1 < kClusters) issue_step_loads<c + 1>(ops, lds, s, f);
  }

  /// MX-32: the E8M0 byte loads of L phase c of tile s (scale_loads(c) of them): B cluster c-1 of
  /// tile s+1 (c = 0: cluster kClusters-1 of tile s), whose bytes in f.sb the tile's M_(c-1) has
  /// just used; in L_0 also A's second half copy of tile s (M_(kClusters-1) of tile s-1 has just
  /// used it), in L_(kClusters/2) A's first half copy of tile s+1 (M_(kClusters/2-1) has).
  /// NOTE: the prologue's bytes are sign-extended (buffer_load_sbyte), the loop's zero-extended:
  /// the MFMA reads byte 0 only, and with both kinds of values entering the loop the compiler keeps
  /// the loop-carried registers 32-bit (with zero-extended bytes alone it carries them as i8 and
  /// widens each again, v_and 0xff, with a wait for its load, at the top of the loop).
  template <int c, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_scale_loads(Fragments& f, Operands const& ops, int s) {
    if constexpr (kHardwareMx) {
      auto load = [](arch::BufferRange const& r, std::uint32_t voffset, std::uint32_t soffset) {
        std::uint32_t const byte = arch::buffer_load_u8(r, voffset, soffset);
        if constexpr (kPrologue)
          return static_cast<std::uint32_t>(
              static_cast<std::int8_t>(static_cast<std::uint8_t>(byte)));
        return byte;
      };
      constexpr int kCluster = c == 0 ? kClusters - 1 : c - 1;
      std::uint32_t const kb = ops.mx_offset(c == 0 ? s : s + 1);
      FP8GEMM_UNROLL
      for (int q = 0; q < kClusterAtomsN; ++q) {
        int const j = kCluster * kClusterAtomsN + q;
        f.sb[j] = load(ops.mx_b_range, ops.mx_b[j], kb);
      }
      if constexpr (c == 0 || c == kClusters / 2) {
        constexpr int kHalf = c == 0 ? 1 : 0;
        std::uint32_t const kb_a = ops.mx_offset(c == 0 ? s : s + 1);
        FP8GEMM_UNROLL
        for (int i = 0; i < kAtomsM; ++i) f.sa[kHalf][i] = load(ops.mx_a_range, ops.mx_a[i], kb_a);
      }
    } else {
      (void)f, (void)ops, (void)s;
    }
  }

  /// Per lane: the LDS byte offset of chunk c (k = 16 * (lane / 16) + 64c) of its row in atom 0 of
  /// A, and in atom 0 of B cluster 0, stage 0. Every other atom, cluster and stage adds a
  /// compile-time immediate, because the swizzle of a row depends only on lane % 16 here
  /// (reads_match_layout checks it against the layouts for every lane).
  struct ReadBase {
    std::uint32_t a[kReadsPerFragment];
    std::uint32_t b[kReadsPerFragment];
  };
  FP8GEMM_HOST_DEVICE static constexpr ReadBase read_base(int lane, int wave_m, int wave_n) {
    int const r = lane % 16, swz = (r / 2) % LdsLayoutA::kChunks;
    ReadBase rb{};
    for (int c = 0; c < kReadsPerFragment; ++c) {
      int const x = lane / 16 + 4 * c;  // logical 16-byte chunk of the row
      rb.a[c] = static_cast<std::uint32_t>((wave_m * Policy::kWaveTileM + r) * kSlotBytes +
                                           16 * (x ^ swz));
      rb.b[c] = static_cast<std::uint32_t>((wave_n * 32 + r) * kSlotBytes + 16 * (x ^ swz));
    }
    return rb;
  }
  /// Immediates: A atom i; B cluster cl, atom q (stage 0; the stage goes into the address).
  FP8GEMM_HOST_DEVICE static constexpr int a_imm(int stage, int i) {
    return stage * LdsLayoutA::kBytes + i * Atom::kM * kSlotBytes;
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_imm(int stage, int cl, int q) {
    return stage * LdsLayoutB::kBytes +
           (cl * LdsLayoutB::kSlotsPerPart + q * Atom::kN) * kSlotBytes;
  }
  /// The LDS addresses of this lane's reads in one stage: A chunks, B chunks.
  struct ReadAddress {
    arch::LdsAddress a[kReadsPerFragment];
    arch::LdsAddress b[kReadsPerFragment];
  };
  FP8GEMM_DEVICE static ReadAddress read_address(SharedStorage const& lds, ReadBase const& rb,
                                                 int stage) {
    arch::LdsAddress const a0 = arch::lds_address(lds.a[0]) + stage * LdsLayoutA::kBytes;
    arch::LdsAddress const b0 = arch::lds_address(lds.b[0]) + stage * LdsLayoutB::kBytes;
    ReadAddress ra{};
    FP8GEMM_UNROLL
    for (int c = 0; c < kReadsPerFragment; ++c) ra.a[c] = a0 + rb.a[c], ra.b[c] = b0 + rb.b[c];
    return ra;
  }
  /// Row and k of read c of lane `lane` in an atom: the atom's own fragment map when it takes the
  /// whole tile K (gfx950); else row lane % 16, k = 16 * (lane / 16) + 64c, whose bytes
  /// 8m .. 8m + 7 feed MFMA m of the atom's kMmasPerAtom. Formula (gfx942, kK = 32, one read):
  ///   MFMA m, lane l, byte b (the MFMA's k = 8 * (l / 16) + b) multiplies tile k
  ///   16 * (l / 16) + 8m + b,
  /// a bijection of (m, MFMA k) onto the tile's 64 k, the same for A and B: the sum over the
  /// tile's K is unchanged (promotion, if any, is once per tile: BufferLdsPingPongSupports).
  FP8GEMM_HOST_DEVICE static constexpr int read_row(int lane, int c) {
    return kMmasPerAtom == 1 ? Atom::a_row(lane, c) : lane % 16;
  }
  FP8GEMM_HOST_DEVICE static constexpr int read_k(int lane, int c) {
    return kMmasPerAtom == 1 ? Atom::a_k(lane, c) : 16 * (lane / 16) + 64 * c;
  }
  static_assert(kMmasPerAtom == 1 || (Atom::a_row(17, 0) == 1 && Atom::a_k(17, 0) == 8 &&
                                      Atom::b_col(17, 0) == 1 && Atom::b_k(17, 0) == 8),
                "kMmasPerAtom > 1: the atom takes 8 bytes of row lane % 16 at k = 8 * (lane / 16)");
  FP8GEMM_HOST_DEVICE static constexpr bool reads_match_layout() {
    for (int w = 0; w < kWaves; ++w) {
      int const wm = w / Policy::kWavesN, wn = w % Policy::kWavesN;
      for (int lane = 0; lane < kWaveSize; ++lane) {
        ReadBase const rb = read_base(lane, wm, wn);
        for (int c = 0; c < kReadsPerFragment; ++c) {
          for (int i = 0; i < kAtomsM; ++i)
            if (rb.a[c] + a_imm(0, i) !=
                LdsLayoutA::offset(wm * Policy::kWaveTileM + i * Atom::kM + read_row(lane, c),
                                   read_k(lane, c)))
              return false;
          for (int cl = 0; cl < kClusters; ++cl)
            for (int q = 0; q < kClusterAtomsN; ++q)
              if (rb.b[c] + b_imm(0, cl, q) !=
                  LdsLayoutB::offset(wn * Policy::kWaveTileN +
                                         (cl * kClusterAtomsN + q) * Atom::kN + read_row(lane, c),
                                     read_k(lane, c)))
                return false;
        }
      }
    }
    return true;
  }
  static_assert(reads_match_layout(),
                "fragment read offsets (base + immediate) must equal the LDS layouts' offsets");
  static_assert(a_imm(1, kAtomsM - 1) < 65536 &&
                    b_imm(1, kClusters - 1, kClusterAtomsN - 1) < 65536,
                "ds_read immediates are 16 bits");

  template <int kImm, class Frag>
  FP8GEMM_DEVICE static void read_fragment(Frag& f,
                                           arch::LdsAddress const (&address)[kReadsPerFragment]) {
    FP8GEMM_UNROLL
    for (int c = 0; c < kReadsPerFragment; ++c) {
      arch::Vec<16> v;
      arch::lds_read16_counted<kImm>(v, address[c]);
      FP8GEMM_UNROLL
      for (int w = 0; w < 4; ++w) f.w[4 * c + w] = v.w[w];
    }
  }
  /// A fragments (ra: the stage's addresses).
  template <int i = 0>
  FP8GEMM_DEVICE static void read_a(FragTileA (&fa)[kAtomsM], ReadAddress const& ra) {
    read_fragment<a_imm(0, i)>(fa[i], ra.a);
    if constexpr (i + 1 < kAtomsM) read_a<i + 1>(fa, ra);
  }
  /// B fragments of cluster kCluster (ra: the stage's addresses).
  template <int kCluster, int q = 0>
  FP8GEMM_DEVICE static void read_b_cluster(FragTileB (&fb)[kClusterAtomsN],
                                            ReadAddress const& ra) {
    read_fragment<b_imm(0, kCluster, q)>(fb[q], ra.b);
    if constexpr (q + 1 < kClusterAtomsN) read_b_cluster<kCluster, q + 1>(fb, ra);
  }

  /// One K tile, in LDS stage s % 2: kClusters (L, M) phase pairs, L_0 first (load_phase<0>,
  /// then multiply_phases<0>: M_0, L_1, M_1, ...); the folded loop votes between L_0 and M_0.
  /// L_c: loads (c = 0: and the A fragments and the tile's Blockwise scales), counted waits.
  template <int c>
  FP8GEMM_DEVICE static void load_phase(Operands const& ops, SharedStorage& lds, int s,
                                        Coords const& tc, ReadBase const& rb, Fragments& f) {
    issue_phase_scale_loads<c>(f, ops, s);  // MX-32: E8M0 bytes first (scale_loads(c))
    if constexpr (!kLoadsInMPhase) issue_phase_loads<c>(ops, lds, s, f);
    if constexpr (c == 0) {
      read_a(f.a, read_address(lds, rb, s & 1));
      read_block_scales(f.scales, lds, ops, tc, s);  // Blockwise: this tile's
    }
    // waits for: this cluster's B fragments (read during M_(c-1)) and A (lgkmcnt 0); this wave's
    // loads of what L_(c+1) and M_(c+1) read (vmcnt: the schedule's count; through registers the
    // ds_writes of M_(c-1), lgkmcnt 0, and the compiler waits for their registers)
    // (kStaged, Blockwise: before L_0 the vmcnt of the next tile's scales, counts_vm)
    if constexpr (counts_vm(c)) {
      arch::wait_vmcnt_lgkmcnt<kVmWait<c> + kWaitSlack, 0>();
    } else {
      arch::wait_lgkmcnt<0>();
    }
    arch::barrier_without_fence();  // waits for: every wave's loads and reads above
  }
  /// M_c: one cluster of MFMAs, the next cluster's B fragments read between them; then L_(c+1),
  /// M_(c+1), ... to the end of the tile. kMode: how the partial sums are promoted.
  template <int c, Promote kMode>
  FP8GEMM_DEVICE static void multiply_phases(Arguments const& args, Operands const& ops,
                                             SharedStorage& lds, int s, int m0, int n0,
                                             Coords const& tc, ReadBase const& rb, Fragments& f,
                                             Accumulators& d) {
    // kLoadsInMPhase (one wave per SIMD, loads between the MFMAs): no L phase of another wave to
    // take turns with, so neither priority nor a closing barrier (the loads need only L_c's).
    if constexpr (!kLoadsInMPhase) arch::set_priority<1>();
    // The last cluster reads the next tile's first cluster, from the other stage; first the next
    // tile's vote scales (Blockwise, folded: in LDS since L_(kClusters-1)'s wait and barrier).
    if constexpr (kFoldScales && c + 1 == kClusters)
      read_vote_scales(f.scales, lds, ops, tc, s + 1);
    ReadAddress const next = read_address(lds, rb, (c + 1 < kClusters ? s : s + 1) & 1);
    mma_cluster_reading_next<c, kMode>(args, ops, lds, tc, m0, n0, s, f, next, d);
    if constexpr (kLoadsInMPhase) {
      arch::schedule_fence();  // the cluster's MFMAs stay in M_c
    } else {
      arch::set_priority<0>();
      arch::barrier_without_fence();  // waits for: the other wave of the SIMD's L phase
    }
    if constexpr (c + 1 < kClusters) {
      load_phase<c + 1>(ops, lds, s, tc, rb, f);
      multiply_phases<c + 1, kMode>(args, ops, lds, s, m0, n0, tc, rb, f, d);
    }
  }

  /// MX-32 in hardware: this lane's E8M0 bytes of K tile kt, for row (column) lane % kM of each
  /// atom and the MX block lane / kM of the atom's K (by lane index, per the ISA; see
  /// LdsMultistageMainloop::multiply_step). Rows or blocks outside the matrix get 2^0 (127).
  FP8GEMM_DEVICE static std::uint8_t mx_scale_byte(ScaleView<Granularity> const& v, int row,
                                                   int kb) {
    if constexpr (std::is_same_v<typename ScaleView<Granularity>::Element, e8m0>) {
      // NOTE: branch free: an in-bounds address always (row 0, block 0 exist), then a select.
      bool const inside = row < v.extent && kb < v.cols;
      std::uint8_t const bits = v.data[(inside ? row : 0) * v.cols + (inside ? kb : 0)].bits;
      return inside ? bits : std::uint8_t{127};
    } else {
      return 127;  // not reached: hardware MX needs e8m0 scales
    }
  }
  FP8GEMM_DEVICE static void load_scales_a(std::uint32_t (&sa)[2][kAtomsM], Arguments const& args,
                                           Coords const& tc, int m0, int kt) {
    int const kb = kt * Policy::kBlockK / 32 + tc.lane / Atom::kM;
    FP8GEMM_UNROLL
    for (int i = 0; i < kAtomsM; ++i) {
      sa[0][i] = mx_scale_byte(
          args.scale_a, m0 + tc.wave_m * Policy::kWaveTileM + i * Atom::kM + tc.lane % Atom::kM,
          kb);
      sa[1][i] = sa[0][i];
    }
  }
  FP8GEMM_DEVICE static void load_scales_b(std::uint32_t (&sb)[kAtomsN], Arguments const& args,
                                           Coords const& tc, int n0, int kt, int cluster) {
    int const kb = kt * Policy::kBlockK / 32 + tc.lane / Atom::kN;
    FP8GEMM_UNROLL
    for (int q = 0; q < kClusterAtomsN; ++q)
      sb[cluster * kClusterAtomsN + q] =
          mx_scale_byte(args.scale_b,
                        n0 + tc.wave_n * Policy::kWaveTileN +
                            (cluster * kClusterAtomsN + q) * Atom::kN + tc.lane % Atom::kN,
                        kb);
  }

  /// kLoadsInMPhase: the MFMA of a cluster of kMfmas after which load n of `loads` goes:
  ///   kReadsBCluster + n · (kMfmas - kReadsBCluster) / loads
  /// past the next cluster's reads; with more loads than MFMAs after the reads, several go after
  /// one MFMA (in load order), and with no MFMA after them, all go after the last.
  FP8GEMM_HOST_DEVICE static constexpr int load_slot(int n, int mfmas, int loads) {
    int const slot = kReadsBCluster + n * (mfmas - kReadsBCluster) / loads;
    return slot < mfmas ? slot : mfmas - 1;
  }
  /// The first load issued after MFMA k (-1: none) and how many follow it there.
  FP8GEMM_HOST_DEVICE static constexpr int load_after_mfma(int k, int mfmas, int loads) {
    for (int n = 0; n < loads; ++n)
      if (load_slot(n, mfmas, loads) == k) return n;
    return -1;
  }
  FP8GEMM_HOST_DEVICE static constexpr int loads_after_mfma(int k, int mfmas, int loads) {
    int count = 0;
    for (int n = 0; n < loads; ++n) count += load_slot(n, mfmas, loads) == k;
    return count;
  }
  /// Part m of a lane's tile bytes: the fragment MFMA m of the atom takes (all of it when
  /// kMmasPerAtom == 1).
  template <int m, class Frag, class Tile>
  FP8GEMM_DEVICE static Frag atom_part(Tile const& t) {
    constexpr int kWords = sizeof(Frag) / 4;
    Frag f;
    FP8GEMM_UNROLL
    for (int w = 0; w < kWords; ++w) f.w[w] = t.w[m * kWords + w];
    return f;
  }
  template <int m>
  FP8GEMM_DEVICE static void mma_part(float (&d)[Atom::kCRegs], FragTileA const& a,
                                      FragTileB const& b) {
    Atom::mma(d, atom_part<m, typename Atom::FragA>(a), atom_part<m, typename Atom::FragB>(b));
  }
  template <int m = 0>
  FP8GEMM_DEVICE static void mma_parts(float (&d)[Atom::kCRegs], FragTileA const& a,
                                       FragTileB const& b) {
    mma_part<m>(d, a, b);
    if constexpr (m + 1 < kMmasPerAtom) mma_parts<m + 1>(d, a, b);
  }

  /// Cluster c's MFMAs (MFMA k: part m = k / (2 kAtomsM) of the atoms, B atom (k / kAtomsM) % 2,
  /// A atom k % kAtomsM: an accumulator's MFMAs are 2 kAtomsM apart; promoting, atom-major from a
  /// zero accumulator, see below); after MFMA k <
  /// kReadsBCluster, the k-th 16-byte read of the next cluster's B fragments (atom
  /// k / kReadsPerFragment, chunk k % kReadsPerFragment), so the reads issue while the matrix pipe
  /// is busy.
  template <int c, Promote kMode, int k = 0>
  FP8GEMM_DEVICE static void mma_cluster_reading_next(Arguments const& args, Operands const& ops,
                                                      SharedStorage& lds, Coords const& tc, int m0,
                                                      int n0, int s, Fragments& f,
                                                      ReadAddress const& next, Accumulators& d) {
    constexpr int kPerPart = kClusterAtomsN * kAtomsM;
    constexpr int kMfmas = kPerPart * kMmasPerAtom;
    if constexpr (kUsePartial) {
      // Atom-major: atom a = (q, i) takes MFMAs kMmasPerAtom a .. + kMmasPerAtom - 1 (part m), the
      // first from a zero accumulator.
      // NOTE: promoted kPromoteLag atoms late (after the first MFMA of atom g + kPromoteLag of the
      // tile, g counted over its clusters: the last atoms of a cluster in the first steps of the
      // next), so the matrix pipe has the next MFMAs while the vector ALU scales an earlier result
      // (read at once, it waits for the MFMA's whole latency: s_nop); the tile's last kPromoteLag
      // atoms after its last MFMA.
      constexpr int a = k / kMmasPerAtom, m = k % kMmasPerAtom;
      constexpr int q = a / kAtomsM, i = a % kAtomsM;
      constexpr int g = c * kClusterAtomsN * kAtomsM + a;  // atom of the tile
      if constexpr (m == 0) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) f.partial[g % kPartialSets][r] = 0.0f;
      }
      mma_part<m>(f.partial[g % kPartialSets], f.a[i], f.b[c % 2][q]);
      if constexpr (m == 0 && g >= kPromoteLag) promote_lagged<g - kPromoteLag, kMode>(f, d);
      if constexpr (k + 1 == kMfmas && c + 1 == kClusters)
        promote_tile_end<g + 1 - kPromoteLag, kMode>(f, d);
    } else {
      // MFMA k: part m = k / kPerPart of the atoms, B atom (k % kPerPart) / kAtomsM, A atom
      // k % kAtomsM: an accumulator's MFMAs are kPerPart apart.
      constexpr int m = k / kPerPart, q = (k % kPerPart) / kAtomsM, i = k % kAtomsM;
      constexpr int j = c * kClusterAtomsN + q;
      if constexpr (kHardwareMx) {
        Atom::mma_scaled_byte0(d.v[i][j], f.a[i], f.b[c % 2][q], f.sa[mx_half(c)][i], f.sb[j]);
      } else {
        mma_part<m>(d.v[i][j], f.a[i], f.b[c % 2][q]);
      }
    }
    if constexpr (k < kReadsBCluster) {
      constexpr int kNext = (c + 1) % kClusters, kAtom = k / kReadsPerFragment;
      constexpr int kChunk = k % kReadsPerFragment;
      arch::Vec<16> v;
      arch::lds_read16_counted<b_imm(0, kNext, kAtom)>(v, next.b[kChunk]);
      FP8GEMM_UNROLL
      for (int w = 0; w < 4; ++w) f.b[(c + 1) % 2][kAtom].w[4 * kChunk + w] = v.w[w];
    }
    if constexpr (kLoadsInMPhase) {  // L_(c+1)'s loads, one after every few MFMAs
      constexpr int kNextPhase = (c + 1) % kClusters;
      constexpr int n = load_after_mfma(k, kMfmas, phase_loads(kNextPhase));
      constexpr int count = loads_after_mfma(k, kMfmas, phase_loads(kNextPhase));
      int const s_next = c + 1 < kClusters ? s : s + 1;
      if constexpr (n >= 0) issue_phase_loads_in_m<kNextPhase, n, n + count>(ops, lds, s_next, f);
    }
    // NOTE: promoting, each MFMA's step stays where the schedule puts it (the scheduler would pull
    // a promotion up behind the next MFMA, where it waits for the MFMA it reads: s_nop).
    if constexpr (kUsePartial) arch::schedule_fence();
    if constexpr (k + 1 < kMfmas)
      mma_cluster_reading_next<c, kMode, k + 1>(args, ops, lds, tc, m0, n0, s, f, next, d);
  }

  /// Promotes atom g of the tile (cluster g / (kClusterAtomsN kAtomsM); in it atom-major: B atom
  /// (g % (kClusterAtomsN kAtomsM)) / kAtomsM of the cluster, A atom g % kAtomsM) from its
  /// partial-sum set.
  template <int g, Promote kMode>
  FP8GEMM_DEVICE static void promote_lagged(Fragments& f, Accumulators& d) {
    constexpr int kPerCluster = kClusterAtomsN * kAtomsM;
    constexpr int c = g / kPerCluster, a = g % kPerCluster;
    promote_atom<a % kAtomsM, c * kClusterAtomsN + a / kAtomsM, kMode>(f.partial[g % kPartialSets],
                                                                       f.scales, d);
  }
  /// The tile's last kPromoteLag atoms, from g on (those before were promoted already).
  template <int g, Promote kMode>
  FP8GEMM_DEVICE static void promote_tile_end(Fragments& f, Accumulators& d) {
    constexpr int kAtoms = kClusters * kClusterAtomsN * kAtomsM;
    if constexpr (g < 0) {
      promote_tile_end<g + 1, kMode>(f, d);
    } else if constexpr (g < kAtoms) {
      promote_lagged<g, kMode>(f, d);
      promote_tile_end<g + 1, kMode>(f, d);
    }
  }

  /// d[i][2c + q] += A atom i * B atom 2c + q of K tile s (MX-32: with its E8M0 bytes).
  template <int c>
  FP8GEMM_DEVICE static void mma_cluster(Arguments const& args, Coords const& tc, int m0, int n0,
                                         int s, Fragments const& f, Accumulators& d) {
    mma_cluster_atoms<c>(f, d);
    (void)args, (void)tc, (void)m0, (void)n0, (void)s;
  }
  template <int c, int k = 0>
  FP8GEMM_DEVICE static void mma_cluster_atoms(Fragments const& f, Accumulators& d) {
    constexpr int q = k / kAtomsM, i = k % kAtomsM, j = c * kClusterAtomsN + q;
    mma_atom<i, j>(f.a[i], f.b[c % 2][q], f, d);  // the tail: kPromoteChosen
    if constexpr (k + 1 < kClusterAtomsN * kAtomsM) mma_cluster_atoms<c, k + 1>(f, d);
  }

  /// Output atom (i, j) of one K tile (B atom j in the cluster's fragment fb):
  ///   MX-32:     d += (A_i · 2^sa) (B_j · 2^sb) in the MFMA (E8M0 bytes of the tile);
  ///   promoting: A_i B_j by the atom's MFMAs of the tile from a zero accumulator, into d by
  ///              promote_atom<kPromoteChosen> (scaled twice, or by the tile's vote; without
  ///              K-blocked scales d += A_i B_j);
  ///   otherwise: d += A_i B_j.
  template <int i, int j>
  FP8GEMM_DEVICE static void mma_atom(FragTileA const& fa, FragTileB const& fb, Fragments const& f,
                                      Accumulators& d) {
    if constexpr (kHardwareMx) {
      constexpr int c = j / kClusterAtomsN;
      Atom::mma_scaled_byte0(d.v[i][j], fa, fb, f.sa[mx_half(c)][i], f.sb[j]);
    } else if constexpr (kUsePartial) {
      float partial[Atom::kCRegs];
      mma_partial(fa, fb, partial);
      promote_atom<i, j, kPromoteChosen>(partial, f.scales, d);
    } else {
      mma_parts(d.v[i][j], fa, fb);
    }
  }
  /// partial = A_i B_j of one K tile: its kMmasPerAtom MFMAs from a zero accumulator.
  FP8GEMM_DEVICE static void mma_partial(FragTileA const& fa, FragTileB const& fb,
                                         float (&partial)[Atom::kCRegs]) {
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; ++r) partial[r] = 0.0f;
    mma_parts(partial, fa, fb);
  }
  /// Output atom (i, j)'s partial sum of one K tile into d[i][j], per kMode (Promote; without
  /// K-blocked scales d[i][j] += partial):
  ///   kTwice:    d += (partial · s_a) · s_b                  (scale_twice)
  ///   kFolded:   d = fma(partial, s_a · s_b, d)              (one operation per element)
  ///   kSelected: d = fma(partial · m1, m2, d)                 (m1 = 1 exactly: kFolded's result)
  template <int i, int j, Promote kMode>
  FP8GEMM_DEVICE static void promote_atom(float const (&partial)[Atom::kCRegs],
                                          BlockScales const& sc, Accumulators& d) {
    // NOTE: in register pairs (v_pk_mul_f32, v_pk_fma_f32), the same per element.
    using Pair = arch::FloatPair;
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; r += 2) {
      Pair const p = {partial[r], partial[r + 1]};
      Pair acc = {d.v[i][j][r], d.v[i][j][r + 1]};
      if constexpr (!kKBlockedScales) {
        acc += p;
      } else if constexpr (kMode == Promote::kTwice) {
        Pair const sa = {sc.a[i][r], sc.a[i][r + 1]}, sb = {sc.b[j][r], sc.b[j][r + 1]};
        acc += (p * sa) * sb;  // scale_twice per element
      } else if constexpr (kMode == Promote::kFolded) {
        Pair const ab = {sc.ab[i][r], sc.ab[i][r + 1]};
        acc = arch::fma_pair(p, ab, acc);
      } else {
        Pair const m1 = {sc.a[i][r], sc.a[i][r + 1]}, m2 = {sc.ab[i][r], sc.ab[i][r + 1]};
        acc = arch::fma_pair(p * m1, m2, acc);
      }
      d.v[i][j][r] = acc[0], d.v[i][j][r + 1] = acc[1];
    }
  }

  /// Blockwise, one B scale per wave tile (kFoldScales): sc.ab = s_a · s_b per A row register,
  /// once per K tile (s_b: the wave tile's one scale, read with the vote).
  FP8GEMM_DEVICE static void fold_products(BlockScales& sc) {
    if constexpr (kFoldScales) {
      float const sb = sc.vote_b;
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) sc.ab[i][r] = sc.a[i][r] * sb;
      }
    } else {
      (void)sc;
    }
  }
  /// The wave's vote on a K tile (its scales in sc.vote_a, sc.vote_b): true when every product
  /// s_a · s_b of the wave's rows is a normal FP32 number (not 0, subnormal, infinite or NaN), so
  /// that d = fma(partial, s_a · s_b, d) never scales a representable partial sum by a product
  /// outside FP32 (the fallback, (partial · s_a) · s_b, keeps it). Each lane tests the rows its
  /// scale loads brought (every row of the wave once), not its kAtomsM x 4 register rows (each
  /// row 16 times over the wave). Every lane of the wave calls it (arch::wave_all).
  /// `more` (wave-uniform): false gives false (no tile to vote on), in the same ballot.
  FP8GEMM_DEVICE static bool vote(BlockScales const& sc, bool more = true) {
    bool normal = more;
    if constexpr (kFoldScales) {
      FP8GEMM_UNROLL
      for (int h = 0; h < kScaleLoadsA; ++h)
        normal = normal && __builtin_isnormal(sc.vote_a[h] * sc.vote_b);
    }
    return arch::wave_all(normal);
  }
  /// kSelected's multipliers for the tile (m1, m2) = fold ? (1, s_a · s_b) : (s_a, s_b), into
  /// (sc.a, sc.ab); fold is wave-uniform (vote).
  FP8GEMM_DEVICE static void select_scales(BlockScales& sc, bool fold) {
    if constexpr (kFoldScales) {
      float const sb = sc.vote_b;
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          sc.a[i][r] = fold ? 1.0f : sc.a[i][r];
          sc.ab[i][r] = fold ? sc.ab[i][r] : sb;
        }
      }
    } else {
      (void)sc, (void)fold;
    }
  }

  /// A partial last K tile (tile t = full of the range, global K tile kt): the same direct-to-LDS
  /// loads into stage 0, where loads of 16-byte chunks past K get an offset outside the range
  /// (zeros);
  /// then the chunk K falls in (K % 16 != 0) is written byte by byte, from global memory below K
  /// and zero above, so nothing past K is read. Then its clusters back to back.
  FP8GEMM_DEVICE static void tail_tile(Arguments const& args, int m0, int n0, int k_tile_begin,
                                       int t, SharedStorage& lds, Coords const& tc, int wave,
                                       Accumulators& d) {
    constexpr std::uint32_t kOutOfRange = 0x80000000u;  // >= any num_records (< 2^31)
    int const kt = k_tile_begin + t;
    int const k0 = kt * Policy::kBlockK;
    int const k_valid = args.a.cols - k0;  // 1 .. kBlockK - 1 bytes of each row in this tile
    int const whole_chunks = k_valid / 16;
    Operands const ops = Operands::make(args, m0, n0, k_tile_begin, t + 1, wave, tc.lane);
    std::uint32_t const k = ops.k_offset(t);
    FP8GEMM_UNROLL
    for (int j = 0; j < kLoadsA; ++j) {
      int const slot = a_slot0(j, wave) + tc.lane / kLanesPerSlot;
      bool const inside = load_k<LdsLayoutA>(slot, tc.lane) / 16 < whole_chunks;
      load_now(ops.a, lds.a[0] + a_slot0(j, wave) * kSlotBytes,
               inside ? ops.voff_a[j] : kOutOfRange, k, tc.lane);
    }
    FP8GEMM_UNROLL
    for (int p = 0; p < kClusters; ++p) {
      FP8GEMM_UNROLL
      for (int q = 0; q < kLoadsBPart; ++q) {
        int const slot = b_slot0(p, q, wave) + tc.lane / kLanesPerSlot;
        bool const inside = load_k<LdsLayoutB>(slot, tc.lane) / 16 < whole_chunks;
        load_now(ops.b, lds.b[0] + b_slot0(p, q, wave) * kSlotBytes,
                 inside ? ops.voff_b[p][q] : kOutOfRange, k, tc.lane);
      }
    }
    arch::wait_vmcnt<0>();  // waits for: this thread's tail loads
    arch::sync_block();     // waits for: every thread's tail loads in LDS
    if (k_valid % 16 != 0) {
      // Chunk whole_chunks of every row: byte b from global memory when below K, else zero.
      int const kc = 16 * whole_chunks;
      for (int idx = arch::thread_idx(); idx < (Policy::kBlockM + Policy::kBlockN) * 16;
           idx += kThreads) {
        int const row = idx / 16, kk = kc + idx % 16;
        bool const is_a = row < Policy::kBlockM;
        int const r = is_a ? row : row - Policy::kBlockM;
        int const grow = (is_a ? m0 : n0) + r;
        bool const inside = grow < (is_a ? args.a.rows : args.b.rows) && kk < k_valid;
        arch::Vec<1> v;
        v.b[0] = 0;
        if (inside) {
          v.b[0] =
              is_a ? reinterpret_cast<std::uint8_t const*>(args.a.data)[grow * args.a.ld + k0 + kk]
                   : reinterpret_cast<std::uint8_t const*>(args.b.data)[grow * args.b.ld + k0 + kk];
        }
        if (is_a) {
          arch::lds_store<1>(lds.a[0], LdsLayoutA::offset(r, kk), v);
        } else {
          arch::lds_store<1>(lds.b[0], LdsLayoutB::offset(r, kk), v);
        }
      }
      arch::sync_block();  // waits for: the chunk at K written by every thread
    }
    ReadBase const rb = read_base(tc.lane, tc.wave_m, tc.wave_n);
    Fragments f;
    read_a(f.a, read_address(lds, rb, 0));
    if constexpr (kHardwareMx) load_scales_a(f.sa, args, tc, m0, kt);
    load_block_scales(f.scales, args, tc, m0, n0, k0);  // K-blocked: promoted after each MFMA
    if constexpr (kFoldScales) {
      fold_products(f.scales);
      select_scales(f.scales, vote(f.scales));
    }
    tail_clusters(args, lds, m0, n0, kt, tc, rb, f, d);
  }

  template <int c = 0>
  FP8GEMM_DEVICE static void tail_clusters(Arguments const& args, SharedStorage& lds, int m0,
                                           int n0, int kt, Coords const& tc, ReadBase const& rb,
                                           Fragments& f, Accumulators& d) {
    read_b_cluster<c>(f.b[c % 2], read_address(lds, rb, 0));
    if constexpr (kHardwareMx) load_scales_b(f.sb, args, tc, n0, kt, c);
    arch::wait_lgkmcnt<0>();  // waits for: this cluster's fragments (the tail is not pipelined)
    mma_cluster<c>(args, tc, m0, n0, kt, f, d);
    if constexpr (c + 1 < kClusters) tail_clusters<c + 1>(args, lds, m0, n0, kt, tc, rb, f, d);
  }

  /// Blockwise: first float of the wave's scales in stage `stage` of lds.scales.
  FP8GEMM_HOST_DEVICE static constexpr int scale_slot(int stage, int wave) {
    return (stage * kWaves + wave) * kScaleFloats;
  }
  /// Blockwise: the scales of K tile s from LDS (loaded one tile ahead; the wait before L_0
  /// counts them): A rows 16i + 4 (lane / 16) + r of atom i, 4 consecutive floats, one
  /// ds_read_b128 per atom; B column 16j + lane % 16 of atom j, the same for its 4 registers, one
  /// ds_read_b32 per atom (when a scale block spans the wave tile: one ds_read_b128 of columns
  /// 0 .. 3, all the same).
  FP8GEMM_DEVICE static void read_block_scales(BlockScales& sc, SharedStorage& lds,
                                               Operands const& ops, Coords const& tc, int s) {
    if constexpr (kKBlockedScales) {
      static_assert(Atom::kCRegs == 4 && Atom::kM == 16 && Atom::kN == 16,
                    "one ds_read_b128 of 4 rows per atom");
      arch::LdsAddress const base =
          arch::lds_address(reinterpret_cast<std::uint8_t const*>(lds.scales)) +
          4 * scale_slot(s & 1, ops.wave);
      read_scales_a(sc, base + 4 * (4 * (tc.lane / 16)));
      // folded: the B scale came with the vote (sc.vote_b, read one tile ahead)
      if constexpr (!kFoldScales) read_scales_b(sc, base, base + 4 * (tc.lane % 16));
    } else {
      (void)sc, (void)lds, (void)ops, (void)tc, (void)s;
    }
  }
  template <int i = 0>
  FP8GEMM_DEVICE static void read_scales_a(BlockScales& sc, arch::LdsAddress address) {
    arch::Vec<16> v;
    arch::lds_read16_counted<4 * i * Atom::kM>(v, address);
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; ++r) sc.a[i][r] = __builtin_bit_cast(float, v.w[r]);
    if constexpr (i + 1 < kAtomsM) read_scales_a<i + 1>(sc, address);
  }
  template <int j = 0>
  FP8GEMM_DEVICE static void read_scales_b(BlockScales& sc, arch::LdsAddress base,
                                           arch::LdsAddress address) {
    float b;
    if constexpr (kOneScaleB) {
      arch::Vec<16> v;
      arch::lds_read16_counted<4 * kScaleRowsA>(v, base);
      b = __builtin_bit_cast(float, v.w[0]);
    } else {
      arch::Vec<4> v;
      arch::lds_read4_counted<4 * (kScaleRowsA + j * Atom::kN)>(v, address);
      b = __builtin_bit_cast(float, v.w[0]);
    }
    FP8GEMM_UNROLL
    for (int jj = kOneScaleB ? 0 : j; jj < (kOneScaleB ? kAtomsN : j + 1); ++jj) {
      FP8GEMM_UNROLL
      for (int r = 0; r < Atom::kCRegs; ++r) sc.b[jj][r] = b;
    }
    if constexpr (!kOneScaleB && j + 1 < kAtomsN) read_scales_b<j + 1>(sc, base, address);
  }

  /// Blockwise, folded: the vote's scales of K tile t from LDS (stage t % 2): s_a of rows
  /// 64h + lane of the wave tile (the rows this lane's scale loads brought: every row of the wave
  /// once) and the wave tile's B scale, 4 bytes each (kVoteReadBytes). Waited for by a counted
  /// lgkmcnt before vote.
  FP8GEMM_DEVICE static void read_vote_scales(BlockScales& sc, SharedStorage& lds,
                                              Operands const& ops, Coords const& tc, int t) {
    if constexpr (kFoldScales) {
      arch::LdsAddress const base =
          arch::lds_address(reinterpret_cast<std::uint8_t const*>(lds.scales)) +
          4 * scale_slot(t & 1, ops.wave);
      read_vote_scales_a(sc, base + 4 * tc.lane);
      arch::Vec<4> v;
      arch::lds_read4_counted<4 * kScaleRowsA>(v, base);
      sc.vote_b = __builtin_bit_cast(float, v.w[0]);
    } else {
      (void)sc, (void)lds, (void)ops, (void)tc, (void)t;
    }
  }
  template <int h = 0>
  FP8GEMM_DEVICE static void read_vote_scales_a(BlockScales& sc, arch::LdsAddress address) {
    arch::Vec<4> v;
    arch::lds_read4_counted<4 * h * kWaveSize>(v, address);
    sc.vote_a[h] = __builtin_bit_cast(float, v.w[0]);
    if constexpr (h + 1 < kScaleLoadsA) read_vote_scales_a<h + 1>(sc, address);
  }

  /// The K-blocked scales of one K tile (scale block of k = chunk_k), per accumulator row / column
  /// register, straight from global memory: the partial last K tile's (tail_tile; the loop's come
  /// through LDS, read_block_scales). Rows past M / N take the last row's scale: their partial
  /// sums are zero (zero-filled A / B) and their outputs never stored.
  FP8GEMM_DEVICE static void load_block_scales(BlockScales& sc, Arguments const& args,
                                               Coords const& tc, int m0, int n0, int chunk_k) {
    if constexpr (kKBlockedScales) {
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          int const row = m < args.scale_a.extent ? m : args.scale_a.extent - 1;
          sc.a[i][r] = args.scale_a.block(row, chunk_k, Granularity::kABlockM);
        }
      }
      FP8GEMM_UNROLL
      for (int j = 0; j < kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const n = n0 + tc.col(j, r);
          int const row = n < args.scale_b.extent ? n : args.scale_b.extent - 1;
          sc.b[j][r] = args.scale_b.block(row, chunk_k, Granularity::kBBlockN);
        }
      }
      if constexpr (kFoldScales) {  // the vote's rows (read_vote_scales)
        FP8GEMM_UNROLL
        for (int h = 0; h < kScaleLoadsA; ++h) {
          int const m = m0 + tc.wave_m * Policy::kWaveTileM + h * kWaveSize + tc.lane;
          int const row = m < args.scale_a.extent ? m : args.scale_a.extent - 1;
          sc.vote_a[h] = args.scale_a.block(row, chunk_k, Granularity::kABlockM);
        }
        sc.vote_b = sc.b[0][0];
      }
    } else {
      (void)sc, (void)args, (void)tc, (void)m0, (void)n0, (void)chunk_k;
    }
  }
};

}  // namespace fp8gemm
