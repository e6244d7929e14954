// SPDX-License-Identifier: MIT
/// WgmmaTilePolicy: the compile-time shape of the Hopper TMA + WGMMA warp-specialized kernel
/// (policy layer). Every impossible combination is a static_assert that says why.
#pragma once

#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/policy/rule.hpp"

namespace fp8gemm {

/// Block tile BlockM x BlockN x 128 per CTA (one 128-byte-swizzled TMA box of K per stage), a
/// producer warpgroup (one elected thread issues the TMA copies) and Consumers consumer
/// warpgroups issuing wgmma.m64nBlockNk32, Stages shared-memory stages of
/// (BlockM + BlockN) x 128 bytes.
///
/// Consumers = 2, Schedule kCooperative: both consumers work on the same tile, consumer c owns
/// rows c BlockM/2 up to (c+1) BlockM/2 - 1, i.e. BlockM / (2 x 64) m64 row blocks ("waves") of
/// BlockN / 2 FP32 accumulators per thread each. Schedule kPingPong: the consumers take the CTA's
/// tiles in turn (consumer c its tiles c, c + 2, ...), each owning a whole tile, so one stores its
/// tile's epilogue while the other multiplies the next. Consumers = 1: one consumer owns the tile.
///
/// Registers (65,536 per SM, one CTA per SM): with two consumers the producer gives registers
/// back (setmaxnreg 40) and the consumers take 232 (128 x 40 + 256 x 232 = 64,512); the
/// mainloop checks that its accumulators (plus a promotion copy) fit.
///
/// Multicast (2-CTA clusters, the tile scheduler pairs tiles): kA, the two CTAs of a cluster
/// compute neighbouring tiles of one tile row (same m0) and share A's tile; kB, neighbouring
/// tiles of one tile column (same n0) sharing B's. Each CTA copies its half of the shared tile's
/// rows (cluster rank r: rows r x half) into both CTAs' shared memory (TMA multicast, one L2 read
/// for both), and its own tile of the other operand as usual.
///
/// Which combinations compile (besides the shape rules below). Each is a static_assert; its
/// sentence is quoted and the case in [brackets] (tests/compile_fail/<case>.cpp) breaks it:
///   W1. B stored [K, N] (kernel/gemm_config.hpp): "FP8 wgmma reads B K-major only: store B as
///       [N, K] (LayoutB::kNK; transpose_kn_to_nk_gpu / _host in quant/transpose.hpp converts a
///       [K, N] weight once), or use the portable policy Sm90Default, which reads [K, N]"
///       [wgmma_kn_b]
///   W2. Mx32 (mainloop/tma_wgmma_warp_specialized.hpp): "MX-32 scales are not offered by the
///       WGMMA kernel (one scale per 32 K would be a promotion per wgmma): use the portable
///       policy Sm90Default for Mx32 on Hopper" [wgmma_mx32]
///   W3. PromoteEvery<K> with K != 128 (mainloop): "WGMMA policies promote once per 128-K block
///       (PromoteEvery<128>, the default) or never (FastAccumulation)" [wgmma_promotion_interval]
///   W4. Registers (mainloop): "WGMMA: accumulators (+ the promotion's partial sums) above 192
///       registers per consumer thread leave too little of the 232 for addresses and scales: use
///       FastAccumulation or a smaller tile (128 x 256 promoted: one m64 row block per consumer,
///       promoted in chunks of N)" [wgmma_accumulator_budget]
///   W5. Blockwise K block (mainloop): "Blockwise scales on the WGMMA kernel: the K block must be
///       128 (Blockwise<bm, bn, 128>), the k-block at which it promotes" [wgmma_blockwise_k]
///   W6. Shared memory (here): "WgmmaTilePolicy: the stages do not fit the 227 KiB of shared
///       memory a block may use: shrink the tile or Stages" [wgmma_smem_budget]
///   W7. Blockwise B scale block along N (mainloop): "Blockwise scales on the WGMMA kernel: B's
///       scale block along N must be a multiple of 8 that divides BlockN or is a multiple of it
///       (each group of 8 accumulator columns then has one B scale)" [wgmma_blockwise_n]
///   W8. Multicast with the ping-pong schedule (here): "WgmmaTilePolicy: TMA multicast needs the
///       cooperative schedule: a multicast stage is read by both CTAs' consumers of one tile
///       pair, while ping-pong consumers read different tiles from alternate stages, so the two
///       CTAs' rings would not hold the same k-blocks" [wgmma_multicast_pingpong]
///   W9. Blockwise scales with the swapped operands (mainloop): "Blockwise scales with swapped
///       operands (WgmmaSwapABPolicy, Sm90WgmmaDecode): at most 64 columns of A (each
///       accumulator column, a row of C, holds its own A scale: with 128 they and their loads do
///       not fit beside the accumulators, ptxas spills), and B's scale block along N a multiple
///       of a consumer's 64 rows of N (one B scale per consumer and k-block)"
///       [wgmma_swapab_blockwise]
///   W10. WgmmaSwapABPolicy's shape (here): "WgmmaSwapABPolicy: one or two consumers, each
///       with 64 rows of B (one m64 wgmma per k-step: BlockNRows = 64 x Consumers), and
///       BlockMCols a wgmma N the atom has (8, 16, 32, 64, 72, 80, 88, 96, 104, 112, 128, 144,
///       160, 176, 192 or 256)" [wgmma_swapab_shape]
///   W11. L2 stream hints (mainloop): "kL2StreamHints: the L2 hints mark B as the operand a single
///       tile row streams; offered on unclustered policies without swapped operands only"
///       [wgmma_l2_stream_hints]
/// How two consumer warpgroups share the work: the same tile (cooperative) or alternate tiles.
enum class WgmmaSchedule { kCooperative, kPingPong };

/// Which operand's tile the two CTAs of a cluster share (TMA multicast), or none (no cluster).
enum class WgmmaMulticast { kNone, kA, kB };

/// Marks a WGMMA policy: WgmmaTilePolicy and anything derived from it (a derived struct may
/// shadow a tuning member such as kL2Promotion; the shape members must stay as they are).
struct WgmmaPolicyTag {};

/// The most stages of stage_bytes that fit the 227 KiB a block may use, as the kernel lays them
/// out: the stages, their two 8-byte mbarriers each (the SharedStorage struct rounds them up to
/// its 1024-B alignment) and the 1024 B the kernel keeps to align the ring, with reserved_bytes
/// left beside them (an epilogue's staging tiles). 0 when stage_bytes is not a positive multiple
/// of 1024 (wgmma_max_stages refuses those).
constexpr int wgmma_max_stages_for(int stage_bytes, int reserved_bytes = 0) {
  constexpr int kAlign = arch::Sm90a::kSmemAlignment;
  if (stage_bytes <= 0 || stage_bytes % 1024 != 0) return 0;
  int stages = 0;
  while (true) {
    int const next = stages + 1;
    int const barriers = (2 * next * 8 + kAlign - 1) / kAlign * kAlign;
    if (next * stage_bytes + reserved_bytes + barriers + kAlign > arch::Sm90a::kLdsBytes)
      return stages;
    stages = next;
  }
}

/// WgmmaTilePolicy's shape rules as values (W6, W8 and the shape rules below), evaluated without
/// instantiating the policy or its atom: kValid, why_not() (the first failing rule's sentence,
/// nullptr when valid), and the quantities the mainloop's rules need.
template <int BlockM, int BlockN, int Consumers, int Stages,
          WgmmaSchedule Schedule = WgmmaSchedule::kCooperative,
          WgmmaMulticast Multicast = WgmmaMulticast::kNone>
struct WgmmaPolicyRules {
  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = 128, kStages = Stages;
  static constexpr int kAtomM = 64, kAtomN = BlockN;  // Sm90Wgmma64xNx32<BlockN>
  static constexpr bool kPingPong = Schedule == WgmmaSchedule::kPingPong;
  static constexpr bool kSwapAB = false;
  static constexpr int kConsumersPerTile = kPingPong ? 1 : Consumers;
  static constexpr int kAtomsM =
      rules::quotient(BlockM / rules::at_least_one(kConsumersPerTile), 64);
  static constexpr int kAccumulators = kAtomsM * (BlockN / 2);
  static constexpr int kConsumerRegisters = 232;
  static constexpr int kClusterSize = Multicast == WgmmaMulticast::kNone ? 1 : 2;
  static constexpr bool kMulticastA = Multicast == WgmmaMulticast::kA;
  static constexpr bool kMulticastB = Multicast == WgmmaMulticast::kB;
  static constexpr int kStageBytes = (BlockM + BlockN) * kBlockK;

#define FP8GEMM_RULE_WGMMA_CONSUMERS \
  "WgmmaTilePolicy: one consumer warpgroup, or two (cooperative or ping-pong)"
  static constexpr bool kConsumerCount = Consumers == 1 || Consumers == 2;
#define FP8GEMM_RULE_WGMMA_BLOCK_N                                                   \
  "WgmmaTilePolicy: BlockN must be 64, 128, 144, 160, 176, 192 or 256 (the wgmma N " \
  "of one instruction)"
  static constexpr bool kBlockNShape = BlockN == 64 || BlockN == 128 || BlockN == 144 ||
                                       BlockN == 160 || BlockN == 176 || BlockN == 192 ||
                                       BlockN == 256;
#define FP8GEMM_RULE_WGMMA_PINGPONG_CONSUMERS \
  "WgmmaTilePolicy: the ping-pong schedule alternates two consumer warpgroups"
  static constexpr bool kPingPongConsumers = !kPingPong || Consumers == 2;
#define FP8GEMM_RULE_WGMMA_BLOCK_M                                                \
  "WgmmaTilePolicy: BlockM must be a multiple of 64 x the consumers per tile (2 " \
  "cooperative, else 1: each consumer owns whole m64 row blocks)"
  static constexpr bool kBlockMShape = BlockM > 0 && rules::divides(64 * kConsumersPerTile, BlockM);
#define FP8GEMM_RULE_WGMMA_BLOCK_M_MAX "WgmmaTilePolicy: BlockM must be at most 256 (one TMA box)"
  static constexpr bool kBlockMMax = BlockM <= 256;
#define FP8GEMM_RULE_WGMMA_STAGES "WgmmaTilePolicy: at least two stages"
  static constexpr bool kTwoStages = Stages >= 2;
#define FP8GEMM_RULE_WGMMA_SMEM_BUDGET                                               \
  "WgmmaTilePolicy: the stages do not fit the 227 KiB of shared memory a block may " \
  "use: shrink the tile or Stages"
  static constexpr bool kSmemBudget =
      Stages * kStageBytes + 2 * Stages * 8 + arch::Sm90a::kSmemAlignment <= arch::Sm90a::kLdsBytes;
#define FP8GEMM_RULE_WGMMA_MULTICAST_PINGPONG                                         \
  "WgmmaTilePolicy: TMA multicast needs the cooperative schedule: a multicast stage " \
  "is read by both CTAs' consumers of one tile pair, while ping-pong consumers read " \
  "different tiles from alternate stages, so the two CTAs' rings would not hold the " \
  "same k-blocks"
  static constexpr bool kMulticastCooperative = Multicast == WgmmaMulticast::kNone || !kPingPong;

  static constexpr char const* why_not() {
    // A local array: nvcc (EDG) sees a class template's static member array with its bound
    // still unknown while kValid's initializer calls why_not(), and refuses first_failing.
    constexpr Rule kRules[] = {
        {kConsumerCount, FP8GEMM_RULE_WGMMA_CONSUMERS},
        {kBlockNShape, FP8GEMM_RULE_WGMMA_BLOCK_N},
        {kPingPongConsumers, FP8GEMM_RULE_WGMMA_PINGPONG_CONSUMERS},
        {kBlockMShape, FP8GEMM_RULE_WGMMA_BLOCK_M},
        {kBlockMMax, FP8GEMM_RULE_WGMMA_BLOCK_M_MAX},
        {kTwoStages, FP8GEMM_RULE_WGMMA_STAGES},
        {kSmemBudget, FP8GEMM_RULE_WGMMA_SMEM_BUDGET},
        {kMulticastCooperative, FP8GEMM_RULE_WGMMA_MULTICAST_PINGPONG},
    };
    return first_failing(kRules);
  }
  static constexpr bool kValid = why_not() == nullptr;
};

template <int BlockM, int BlockN, int Consumers, int Stages, class EA = e4m3fn, class EB = e4m3fn,
          WgmmaSchedule Schedule = WgmmaSchedule::kCooperative,
          WgmmaMulticast Multicast = WgmmaMulticast::kNone>
struct WgmmaTilePolicy : WgmmaPolicyTag {
  using Atom = arch::Sm90Wgmma64xNx32<BlockN, EA, EB>;
  using Arch = arch::Sm90a;
  using ElementA = EA;
  using ElementB = EB;

  static constexpr int kBlockM = BlockM, kBlockN = BlockN;
  static constexpr int kBlockK = 128;  // one TMA box row: 128 bytes of K, the swizzle span
  static constexpr int kStages = Stages, kConsumers = Consumers;
  static constexpr bool kPingPong = Schedule == WgmmaSchedule::kPingPong;
  static constexpr int kConsumersPerTile = kPingPong ? 1 : Consumers;  // that read each stage
  static constexpr int kConsumerRows = BlockM / kConsumersPerTile;    // rows of C one consumer owns
  static constexpr int kWavesPerConsumer = kConsumerRows / Atom::kM;  // m64 row blocks
  static constexpr int kThreads = Arch::kWarpgroupThreads * (1 + Consumers);
  /// FP32 accumulators per consumer thread for the whole tile.
  static constexpr int kAccumulators = kWavesPerConsumer * Atom::kAccumulators;
  /// setmaxnreg budgets (two consumers only: with one the launch bound already gives 255).
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  /// Names shared with TilePolicy (Gemm::name, the epilogue's accumulator walk): a consumer's
  /// accumulators are kAtomsM x kAtomsN atoms of Atom::kCRegs registers.
  static constexpr int kWavesM = kConsumersPerTile, kWavesN = 1;
  static constexpr char const* kScheduleSuffix = kPingPong ? "_pingpong" : "";
  /// The operand a cluster's two CTAs share, and the cluster size (CTAs along grid x).
  static constexpr WgmmaMulticast kMulticast = Multicast;
  static constexpr bool kMulticastA = Multicast == WgmmaMulticast::kA;
  static constexpr bool kMulticastB = Multicast == WgmmaMulticast::kB;
  static constexpr int kClusterSize = Multicast == WgmmaMulticast::kNone ? 1 : 2;
  static constexpr char const* kMulticastSuffix = kMulticastA ? "_mcA" : kMulticastB ? "_mcB" : "";
  static constexpr int kAtomsM = kWavesPerConsumer, kAtomsN = 1;

  /// Bytes an L2 miss of the operands' TMA copies fetches from HBM (the tensor maps' L2
  /// promotion): a copy reads 128 B of each of its rows, and the next k-block reads the next 128.
  /// A tuning member (shadow it in a derived struct); docs/performance.md#sm90-tma-l2-promotion.
  static constexpr arch::TmaL2Promotion kL2Promotion = arch::TmaL2Promotion::k128B;
  /// L2 cache hints on the operand copies when all of M fits one tile row
  /// (TmaWgmmaMainloop::l2_stream_hints: B's lines evict first, A's last); unclustered policies
  /// only. A tuning member: on for Sm90WgmmaMediumM (docs/performance.md#sm90-l2-stream-hints),
  /// off elsewhere.
  static constexpr bool kL2StreamHints = false;

  static constexpr int kStageBytesA = BlockM * kBlockK;
  static constexpr int kStageBytesB = BlockN * kBlockK;
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;

  using Rules = WgmmaPolicyRules<BlockM, BlockN, Consumers, Stages, Schedule, Multicast>;
  static_assert(Rules::kConsumerCount, FP8GEMM_RULE_WGMMA_CONSUMERS);
  static_assert(Rules::kBlockNShape, FP8GEMM_RULE_WGMMA_BLOCK_N);
  static_assert(Rules::kPingPongConsumers, FP8GEMM_RULE_WGMMA_PINGPONG_CONSUMERS);
  static_assert(Rules::kBlockMShape, FP8GEMM_RULE_WGMMA_BLOCK_M);
  static_assert(Rules::kBlockMMax, FP8GEMM_RULE_WGMMA_BLOCK_M_MAX);
  static_assert(Rules::kTwoStages, FP8GEMM_RULE_WGMMA_STAGES);
  static_assert(Rules::kSmemBudget, FP8GEMM_RULE_WGMMA_SMEM_BUDGET);
  static_assert(Rules::kMulticastCooperative, FP8GEMM_RULE_WGMMA_MULTICAST_PINGPONG);
};

/// wgmma_max_stages_for(StageBytes), refusing a StageBytes that is not 1024-B multiples.
template <int StageBytes, int ReservedBytes = 0>
constexpr int wgmma_max_stages() {
  static_assert(StageBytes > 0 && StageBytes % 1024 == 0,
                "wgmma_max_stages: a stage is a whole number of 1024-B swizzle atoms");
  return wgmma_max_stages_for(StageBytes, ReservedBytes);
}

/// WgmmaSwapABPolicy's rules as values (W10 and the stage rules), as WgmmaPolicyRules.
template <int BlockNRows, int BlockMCols, int Consumers, int Stages,
          WgmmaMulticast Multicast = WgmmaMulticast::kNone>
struct WgmmaSwapABPolicyRules {
  static constexpr int kBlockM = BlockMCols, kBlockN = BlockNRows, kBlockK = 128;
  static constexpr int kStages = Stages;
  static constexpr int kAtomM = 64, kAtomN = BlockMCols;  // Sm90Wgmma64xNx32<BlockMCols>
  static constexpr bool kPingPong = false;
  static constexpr bool kSwapAB = true;
  static constexpr int kAtomsM = 1;
  static constexpr int kAccumulators = BlockMCols / 2;
  static constexpr int kConsumerRegisters = 232;
  static constexpr int kClusterSize = Multicast == WgmmaMulticast::kNone ? 1 : 2;
  static constexpr bool kMulticastA = Multicast == WgmmaMulticast::kA;
  static constexpr bool kMulticastB = Multicast == WgmmaMulticast::kB;
  static constexpr int kStageBytes = (BlockMCols + BlockNRows) * kBlockK;

#define FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE                                                  \
  "WgmmaSwapABPolicy: one or two consumers, each with 64 rows of B (one m64 wgmma per "  \
  "k-step: BlockNRows = 64 x Consumers), and BlockMCols a wgmma N the atom has (8, 16, " \
  "32, 64, 72, 80, 88, 96, 104, 112, 128, 144, 160, 176, 192 or 256)"
  static constexpr bool kShape = (Consumers == 1 || Consumers == 2) &&
                                 BlockNRows == 64 * Consumers && arch::sm90_wgmma_has_n(BlockMCols);
#define FP8GEMM_RULE_WGMMA_SWAPAB_STAGES "WgmmaSwapABPolicy: at least two stages"
  static constexpr bool kTwoStages = Stages >= 2;
#define FP8GEMM_RULE_WGMMA_SWAPAB_SMEM_BUDGET                                      \
  "WgmmaSwapABPolicy: the stages do not fit the 227 KiB of shared memory a block " \
  "may use: shrink BlockMCols or Stages"
  static constexpr bool kSmemBudget = Stages <= wgmma_max_stages_for(kStageBytes);

  static constexpr char const* why_not() {
    // A local array: nvcc (EDG) sees a class template's static member array with its bound
    // still unknown while kValid's initializer calls why_not(), and refuses first_failing.
    constexpr Rule kRules[] = {
        {kShape, FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE},
        {kTwoStages, FP8GEMM_RULE_WGMMA_SWAPAB_STAGES},
        {kSmemBudget, FP8GEMM_RULE_WGMMA_SWAPAB_SMEM_BUDGET},
    };
    return first_failing(kRules);
  }
  static constexpr bool kValid = why_not() == nullptr;
};

/// Swapped operands for small M (decode): C^T = B A^T. wgmma's A operand is a 64 x 128 B block
/// of the stage's B tile (the wgmma M: 64 rows of N) and its B operand a BlockMCols x 128 B tile
/// of A (the wgmma N: 8..256 rows of M); both are K-major with the 128-byte swizzle already, so
/// only the descriptors trade places. A C tile is BlockMCols x BlockNRows (kBlockM x kBlockN,
/// the tile scheduler's walk); accumulator register r of thread t of consumer c holds
/// C[m0 + acc_col(t, r)][n0 + 64 c + acc_row(t, r)] (TmaWgmmaMainloop::TransposedCoords). A stage
/// holds BlockMCols rows of A next to BlockNRows of B (1 KiB + 8 KiB at BlockMCols = 8, one
/// consumer), so many more stages of B are in flight than WgmmaTilePolicy's 64-row A allows.
/// One consumer warpgroup (BlockNRows = 64), or two (BlockNRows = 128: each multiplies its 64
/// rows of B by the same A tile, cooperatively, as WgmmaTilePolicy's 128-row tiles split M).
/// The wgmma's operand types swap too: Atom = Sm90Wgmma64xNx32<BlockMCols, EB, EA>. Blockwise
/// scales up to BlockMCols = 64 (W9). Multicast (as WgmmaTilePolicy's): 2-CTA clusters whose
/// tiles share B's tile (kB: two tiles of one tile column, the tile rows of M) or A's (kA).
template <int BlockNRows, int BlockMCols, int Consumers, int Stages, class EA = e4m3fn,
          class EB = e4m3fn, WgmmaMulticast Multicast = WgmmaMulticast::kNone>
struct WgmmaSwapABPolicy : WgmmaPolicyTag {
  using Atom = arch::Sm90Wgmma64xNx32<BlockMCols, EB, EA>;  // wgmma A = B tile, wgmma B = A tile
  using Arch = arch::Sm90a;
  using ElementA = EA;  // of the GEMM (A [M, K]), not of the wgmma
  using ElementB = EB;
  static constexpr bool kSwapAB = true;

  static constexpr int kBlockM = BlockMCols, kBlockN = BlockNRows;  // the C tile: M x N
  static constexpr int kBlockK = 128;
  static constexpr int kStages = Stages, kConsumers = Consumers;
  static constexpr bool kPingPong = false;
  static constexpr int kConsumersPerTile = Consumers;  // cooperative: both read every stage
  static constexpr int kConsumerRows = 64;             // wgmma M rows (of N) each consumer owns
  static constexpr int kWavesPerConsumer = 1;
  static constexpr int kThreads = Arch::kWarpgroupThreads * (1 + Consumers);
  static constexpr int kAccumulators = Atom::kAccumulators;
  static constexpr int kProducerRegisters = 40;
  static constexpr int kConsumerRegisters = 232;
  static constexpr int kWavesM = 1, kWavesN = 1;
  static constexpr char const* kScheduleSuffix = "_swapab";
  static constexpr int kAtomsM = 1, kAtomsN = 1;
  /// The operand a cluster's two CTAs share, and the cluster size (as WgmmaTilePolicy's).
  static constexpr WgmmaMulticast kMulticast = Multicast;
  static constexpr bool kMulticastA = Multicast == WgmmaMulticast::kA;
  static constexpr bool kMulticastB = Multicast == WgmmaMulticast::kB;
  static constexpr int kClusterSize = Multicast == WgmmaMulticast::kNone ? 1 : 2;
  static constexpr char const* kMulticastSuffix = kMulticastA ? "_mcA" : kMulticastB ? "_mcB" : "";
  static constexpr arch::TmaL2Promotion kL2Promotion = arch::TmaL2Promotion::k128B;
  static constexpr bool kL2StreamHints = false;  // as WgmmaTilePolicy's (not measured here)

  static constexpr int kStageBytesA = BlockMCols * kBlockK;  // [BlockMCols][128 B] of A
  static constexpr int kStageBytesB = BlockNRows * kBlockK;  // [BlockNRows][128 B] of B
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;

  using Rules = WgmmaSwapABPolicyRules<BlockNRows, BlockMCols, Consumers, Stages, Multicast>;
  static_assert(Rules::kShape, FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE);
  static_assert(Rules::kTwoStages, FP8GEMM_RULE_WGMMA_SWAPAB_STAGES);
  static_assert(Rules::kSmemBudget, FP8GEMM_RULE_WGMMA_SWAPAB_SMEM_BUDGET);
};

/// kSwapAB of a WGMMA policy: false for WgmmaTilePolicy (which has no such member).
template <class P, class = void>
struct WgmmaSwapsAB : std::false_type {};
template <class P>
struct WgmmaSwapsAB<P, std::void_t<decltype(P::kSwapAB)>> : std::bool_constant<P::kSwapAB> {};

/// True for WgmmaTilePolicy and structs derived from it (GemmConfig picks the TMA + WGMMA kernel).
template <class P>
struct IsWgmmaPolicy : std::is_base_of<WgmmaPolicyTag, P> {};

/// The rules of a WGMMA policy (WgmmaPolicyRules or WgmmaSwapABPolicyRules), without instantiating
/// the policy where it is one of the two templates; a struct derived from one is read through its
/// members (it must be valid to be complete), with its own kL2StreamHints.
template <class P, class = void>
struct WgmmaPolicyRulesOf {
  using type = std::conditional_t<
      WgmmaSwapsAB<P>::value,
      WgmmaSwapABPolicyRules<P::kBlockN, P::kBlockM, P::kConsumers, P::kStages, P::kMulticast>,
      WgmmaPolicyRules<P::kBlockM, P::kBlockN, P::kConsumers, P::kStages,
                       P::kPingPong ? WgmmaSchedule::kPingPong : WgmmaSchedule::kCooperative,
                       P::kMulticast>>;
  static constexpr bool kL2StreamHints = P::kL2StreamHints;
};
template <int BM, int BN, int C, int S, class EA, class EB, WgmmaSchedule Sc, WgmmaMulticast Mc>
struct WgmmaPolicyRulesOf<WgmmaTilePolicy<BM, BN, C, S, EA, EB, Sc, Mc>> {
  using type = WgmmaPolicyRules<BM, BN, C, S, Sc, Mc>;
  static constexpr bool kL2StreamHints = false;
};
template <int BNR, int BMC, int C, int S, class EA, class EB, WgmmaMulticast Mc>
struct WgmmaPolicyRulesOf<WgmmaSwapABPolicy<BNR, BMC, C, S, EA, EB, Mc>> {
  using type = WgmmaSwapABPolicyRules<BNR, BMC, C, S, Mc>;
  static constexpr bool kL2StreamHints = false;
};

}  // namespace fp8gemm
