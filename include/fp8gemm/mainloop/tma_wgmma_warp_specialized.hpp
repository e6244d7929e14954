// SPDX-License-Identifier: MIT
/// The Hopper main loop (mainloop layer): TMA copies A and B into a ring of 128-byte-swizzled
/// shared-memory stages, completed on mbarriers; a producer warpgroup fills the ring, consumer
/// warpgroups multiply out of it with wgmma.mma_async and promote the tensor core's partial sums
/// into FP32 registers every 128 K (K-blocked scales applied there). Its contract: Arguments,
/// Params (with the TMA descriptors), SharedStorage, can_implement, to_params, load, multiply.
/// About 900 lines on purpose: the producer's load and the consumers' K loops (plain, promoted
/// per row block, pipelined promotion) share the ring's protocol (stage plan, barriers, positions),
/// which reads best in one place; the K-blocked scales are in wgmma_block_scales.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/mainloop_rules.hpp"
#include "fp8gemm/mainloop/operand_checks.hpp"
#include "fp8gemm/mainloop/wgmma_block_scales.hpp"
#include "fp8gemm/numeric/float_codec.hpp"
#include "fp8gemm/policy/wgmma_policy.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// Where a ring user is: stage index and the parity of that stage's current phase. The producer
/// and each consumer keep their own, carried across tiles (the ring does not restart per tile).
struct RingPosition {
  int stage = 0;
  int phase = 0;
  template <int Stages>
  FP8GEMM_HOST_DEVICE void advance() {
    if (++stage == Stages) stage = 0, phase ^= 1;
  }
  /// `n` k-blocks on (the ping-pong schedule's other consumer's tile): the phase flips once per
  /// wrap of the ring.
  template <int Stages>
  FP8GEMM_HOST_DEVICE void advance_by(int n) {
    int const s = stage + n;
    phase ^= (s / Stages) & 1;
    stage = s % Stages;
  }
};

/// Policy: WgmmaTilePolicy. PromoteK: 128 (promote once per k-block) or 0 (FastAccumulation:
/// the tensor core accumulates the whole K). Blockwise scales always promote, once per k-block.
/// AllowScaleRing: false leaves the scale ring out (kScaleRing), as the config does where its
/// slots would push the TMA-store epilogue out of shared memory (WgmmaEpilogueChoice).
template <class PolicyT, class GranularityT, int PromoteK, bool AllowScaleRing = true>
struct TmaWgmmaMainloop {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Arch = typename Policy::Arch;
  using Atom = typename Policy::Atom;
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kMinBlocksPerSm = 1;  // one CTA per SM: it owns the shared memory
  static constexpr int kStages = Policy::kStages;
  static constexpr int kBlockK = Policy::kBlockK;
  static constexpr int kKSteps = kBlockK / Atom::kK;  // 4 wgmma per m64 row block per k-block
  static constexpr bool kKBlocked = IsBlockwise<Granularity>::value;  // (Mx32 is refused below)
  static constexpr bool kPromote = PromoteK > 0 || kKBlocked;
  /// C^T = B A^T (WgmmaSwapABPolicy): wgmma's A operand is the stage's B tile, its B operand the
  /// A tile, and the accumulators hold C transposed (TransposedCoords).
  static constexpr bool kSwapAB = WgmmaSwapsAB<Policy>::value;
  using Position = RingPosition;  // the kernel keeps one per role, across tiles
  /// 2-CTA clusters (Policy::kMulticast): the shared operand's tile comes in two halves, one per
  /// cluster rank, each multicast into both CTAs.
  static constexpr bool kMulticastA = Policy::kMulticastA;
  static constexpr bool kMulticastB = Policy::kMulticastB;
  static constexpr int kClusterSize = Policy::kClusterSize;
  static constexpr std::uint16_t kClusterMask = (1u << kClusterSize) - 1;  // both CTAs: 0b11
  // NOTE: a half of a 64-row multiple is whole 8-row swizzle atoms, so each half starts 1024-byte
  // aligned in the stage and lands in the 128-byte swizzle pattern of the whole tile.
  using Rules = TmaWgmmaRules<Policy, Granularity, PromoteK>;
  static_assert(Rules::kMulticastHalves, FP8GEMM_RULE_WGMMA_MULTICAST_HALVES);
  static_assert(Rules::kNoMx32, FP8GEMM_RULE_WGMMA_MX32);
  static_assert(Rules::kPromotionInterval, FP8GEMM_RULE_WGMMA_PROMOTION_INTERVAL);
  static_assert(Rules::kBlockwiseK, FP8GEMM_RULE_WGMMA_BLOCKWISE_K);
  static_assert(Rules::kSwapABBlockwise, FP8GEMM_RULE_WGMMA_SWAPAB_BLOCKWISE);
  static_assert(Rules::kL2Hints, FP8GEMM_RULE_WGMMA_L2_STREAM_HINTS);
  static constexpr int kScaleBlockN = Rules::kScaleBlockN;
  static_assert(Rules::kBlockwiseN, FP8GEMM_RULE_WGMMA_BLOCKWISE_N);
  /// A thread's K-block scales for one k-block and their promotion rule
  /// (mainloop/wgmma_block_scales.hpp; public so that host tests check its indexing and rule).
  using BlockScales =
      std::conditional_t<kSwapAB, WgmmaSwappedBlockScales<Policy, Granularity, kScaleBlockN>,
                         WgmmaBlockScales<Policy, Granularity, kScaleBlockN>>;
  /// What a consumer thread may give its accumulators: its setmaxnreg budget less 40 registers
  /// for descriptors, addresses, ring state, scales and the epilogue's temporaries (ptxas checks
  /// the real count in CI: tests/ptxas).
  static constexpr int kAccumulatorRegisterLimit = Policy::kConsumerRegisters - 40;
  /// Chunks of the consumer's N the pipelined promotion works in: the fewest Q (1, 2 or 4) such
  /// that two partial-sum sets of an N / Q-column wgmma fit next to the accumulators:
  ///   kAccumulators + 2 · (N / Q) / 2 <= kAccumulatorRegisterLimit
  /// Q = 1 (Sm90WgmmaDefault 128 x 128, SmallM: 64 + 2 x 64) alternates the two sets over
  /// k-blocks; Q = 2 (128 x 144 .. 128 x 192: n72 .. n96 chunks) and Q = 4 (128 x 256: n64) over
  /// the chunks of each k-block. 0: none fits.
  static constexpr int promote_chunks() {
    for (int q = 1; q <= 4; q *= 2) {
      int const n = Atom::kN / q;
      if (Atom::kN % q == 0 && n % 8 == 0 && arch::sm90_wgmma_has_n(n) &&
          Policy::kAccumulators + n <= kAccumulatorRegisterLimit)
        return q;
    }
    return 0;
  }
  /// Two partial-sum sets of one chunk of one m64 row block: the next item's wgmmas (the next
  /// chunk or k-block) are issued before the previous item is promoted, so the tensor core is
  /// not idle while the FP32 adds run. Two row blocks per consumer (256 x 128, 256 x 64, the
  /// ping-pong 128 x 128) promote with one set of a whole row block (multiply_row_blocks), and
  /// the other consumer fills the gap.
  static constexpr bool kPipelinedPromotion =
      kPromote && Policy::kAtomsM == 1 && promote_chunks() > 0;
  static constexpr int kPromoteChunks = kPipelinedPromotion ? promote_chunks() : 1;
  /// The scale ring (WgmmaBlockScales::ring_offset_a): the producer copies each k-block's
  /// Blockwise scales beside the stage's A and B tiles, the consumers read them from there. For
  /// Blockwise<1, bn, 128> (A scales per row) with at most two B column groups per tile, on the
  /// cooperative loops (both; with 2-CTA clusters too: each CTA copies its own tile's scales; the
  /// ping-pong schedule's only where it pipelines), where the slots fit beside the ring; taken
  /// per call where A's
  /// scales are K-block-major (scale_a_ld: a k-block's scales of the tile's rows are contiguous)
  /// and both scale arrays 16-byte aligned (Params::scale_ring), else the consumers load them as
  /// before.
  static constexpr bool a_scales_per_row() {
    if constexpr (kKBlocked)
      return Granularity::kABlockM == 1;
    else
      return false;
  }
  /// The slots' bytes (ScaleSlots: 128-byte aligned A slots of BlockM + 4 floats, or two parts of
  /// 128 + 4 for 256 rows (WgmmaBlockScales::kRingCopiesA), and one 128-byte
  /// slot per B column group, per stage, and the checked tiles' flags), and whether they fit beside
  /// the stages, their barriers and the kernel's alignment room (the SharedStorage rounds up to
  /// 1024 bytes: counted whole).
  static constexpr int kScaleSlotBytes =
      kStages * (BlockScales::kRingSlotA * 4 + BlockScales::kBGroups * 128) + 128;
  static constexpr bool kScaleSlotsFit =
      kStages * (Policy::kStageBytesA + Policy::kStageBytesB + 16) + kScaleSlotBytes +
          2 * Arch::kSmemAlignment <=
      Arch::kLdsBytes;
  static constexpr bool kScaleRing = AllowScaleRing && a_scales_per_row() &&
                                     BlockScales::kBGroups <= 2 && !kSwapAB &&
                                     (kPipelinedPromotion || !Policy::kPingPong) && kScaleSlotsFit;
  /// Checked tiles (the cooperative kernels that have the scale ring, on calls that take it: with
  /// row-major A scales the checker's reads cost more than the vote they spare,
  /// docs/performance.md#sm90-checked-tiles): the producer warpgroup's warps 1-3, idle otherwise,
  /// walk the consumers' items one ahead and test every scale product s_a · s_b an item's
  /// promotion takes (check_tile);
  /// where all are normal, the consumers promote that tile with the folded form alone
  /// (promote_folded): the bits the warp's vote picks there, without the vote's branch in every
  /// chunk. A CTA's first item is not checked (nothing runs ahead of it); two flag slots, each a
  /// full / empty barrier pair like a stage's. In 2-CTA clusters each CTA checks its own tiles
  /// (the flags and their barriers are the CTA's own, as its scale slots are).
  static constexpr bool kCheckedTiles = kScaleRing && !Policy::kPingPong;
  static constexpr int kCheckWarps = 3;
  /// The wgmma of one promotion chunk: N / kPromoteChunks columns (Atom itself for one chunk).
  using ChunkAtom = arch::Sm90Wgmma64xNx32<Atom::kN / kPromoteChunks, typename Atom::ElementA,
                                           typename Atom::ElementB>;
  /// Registers a consumer thread holds for C: the tile's accumulators, plus, when promoting, two
  /// sets of a chunk's partial sums (kPipelinedPromotion) or one m64 row block's (reused by every
  /// row block). ptxas checks the rest (CI).
  static constexpr int kAccumulatorRegisters =
      Policy::kAccumulators + (!kPromote             ? 0
                               : kPipelinedPromotion ? 2 * ChunkAtom::kAccumulators
                                                     : Atom::kAccumulators);
  static_assert(Rules::kAccumulatorBudget, FP8GEMM_RULE_WGMMA_ACCUMULATOR_BUDGET);
  static_assert(Rules::kAccumulatorRegisters == kAccumulatorRegisters,
                "the rules count the registers as the mainloop does");

  /// The last tile along an operand's rows when it ends inside the tile (unclustered policies):
  /// its copies bring only the rows left, rounded up to the 8-row swizzle atom, through a second
  /// tensor map, instead of a whole box whose rows past the matrix TMA fills with zeros. Those
  /// fills cost more than the rows they stand for: at M = 200 every 128 x 128 kernel ran slower
  /// than at M = 256 (docs/performance.md#sm90-tail-boxes). The stage's rows past the tail box
  /// are stale, as a_box_rows' are: they feed only outputs past M (N), which nothing stores.
  /// origin: the tile origin (operand row) whose copies use the tail map, -1 for none. The
  /// dense walk's last tile starts there; a grouped walk's tile starting there has the same
  /// rows left, and one starting past it copies a whole box, as before.
  struct OperandTail {
    int origin = -1;
    int rows = 0;  // the tail map's box rows
    int box = 0;   // the operand's map's box rows (a tail copy brings box - rows rows less)
  };
  /// The tail of `extent` rows copied in boxes of `box` rows: none when one box covers them all
  /// (a_box_rows shrinks that box already), when the tiles end on the last row, or when the
  /// rounded rows left fill a whole box.
  FP8GEMM_HOST_DEVICE static constexpr OperandTail operand_tail(int extent, int box) {
    int const left = extent % box;
    int const rows = (left + 7) / 8 * 8;
    if (kClusterSize > 1 || extent <= box || left == 0 || rows >= box) return {};
    return {extent - left, rows, box};
  }

  struct Arguments {
    MatrixView<ElementA> a;  // [M, K]
    MatrixView<ElementB> b;  // [N, K]
    ScaleView<Granularity> scale_a;
    ScaleView<Granularity> scale_b;
  };
  struct ScaleMaps {
    arch::TmaDescriptor a, b;
  };
  struct NoScaleMaps {};
  /// What the kernel receives: tensor maps (kept in parameter space: __grid_constant__) instead
  /// of pointers for A and B.
  struct Params {
    arch::TmaDescriptor map_a;  // A [M, K], box 128 (K) x a_box_rows(M) rows, 128-byte swizzle
    arch::TmaDescriptor map_b;  // B [N, K], box 128 (K) x BlockN rows
    ScaleView<Granularity> scale_a;
    ScaleView<Granularity> scale_b;
    ProblemShape problem;
    std::uint32_t stage_tx_bytes = 0;  // stage_plan(m, rank).tx_bytes: every byte landing per stage
    /// Unclustered policies: the last tile of A's rows (B's) that ends inside the matrix is
    /// copied through a second map whose box holds only the rows left (OperandTail).
    arch::TmaDescriptor map_a_tail;  // A, box 128 (K) x tail_a.rows, when tail_a.origin >= 0
    arch::TmaDescriptor map_b_tail;  // B, box 128 (K) x tail_b.rows, when tail_b.origin >= 0
    OperandTail tail_a, tail_b;
    /// kScaleRing: whether this call's scales go through the ring, and their maps (1-D views of
    /// the scale arrays: boxes of BlockM + 4 floats of A (of 128 + 4, twice, for 256 rows), 4 of
    /// B).
    bool scale_ring = false;
    std::conditional_t<kScaleRing, ScaleMaps, NoScaleMaps> scale_maps;
  };

  /// Rows of A one copy brings: the tile's BlockM, or, when all of M fits below that, M rounded
  /// up to the 8-row swizzle atom. The stage's rows past the box are not written (stale bytes of
  /// an earlier k-block, or never initialized): they feed only accumulator rows >= M, which no
  /// store reads (the epilogue and the split-K store check m < M). Decode (M = 1) then copies
  /// 1 KiB of A per stage instead of 8 KiB of zero fill. Swapped (kSwapAB) the same rows are
  /// wgmma's N: the unwritten ones feed accumulator columns >= M, again C rows nothing stores.
  FP8GEMM_HOST_DEVICE static int a_box_rows(int m) {
    return m < Policy::kBlockM ? (m + 7) / 8 * 8 : Policy::kBlockM;
  }

  /// Whether the producer's copies carry L2 cache hints (Policy::kL2StreamHints, unclustered
  /// policies): only when all of M fits one tile row (M <= BlockM). Then each byte of B is read
  /// once, by the one CTA of its tile column, and its lines go first (evict_first), while every
  /// CTA reads all of A, whose lines stay (evict_last). With more tile rows both operands are
  /// read again by other tiles and keep L2's default policy. A's evict_last lines (at most
  /// BlockM x K bytes) may stay in L2 past the kernel ahead of a later kernel's data; its effect
  /// on the kernels that follow is not measured.
  FP8GEMM_HOST_DEVICE static constexpr bool l2_stream_hints(int m) {
    return Policy::kL2StreamHints && m <= Policy::kBlockM;
  }

  /// One TMA copy per operand and stage: `rows` rows of 128 B (the tensor map's box) into the
  /// stage's operand tile from row `smem_row` on, read from global row (tile origin + smem_row);
  /// `multicast`: it lands in both CTAs of the cluster (same offset), else in this CTA only.
  struct StageCopy {
    int rows = 0;
    int smem_row = 0;
    bool multicast = false;
  };
  /// What cluster rank `rank`'s producer copies into one stage, and the bytes its full barrier
  /// expects: every byte landing in this CTA's stage, whoever copied it. The tensor maps' boxes
  /// (a.rows, b.rows, the same for both ranks) and Params::stage_tx_bytes both come from here.
  struct StagePlan {
    StageCopy a, b;
    std::uint32_t tx_bytes = 0;
  };
  /// No cluster: A's a_box_rows(m) rows and B's BlockN rows, expect_tx = their bytes.
  /// kA (kB likewise for B): rank r copies A rows [r BlockM/2, (r+1) BlockM/2) of the tile,
  /// multicast; the stage then receives both halves (one from each rank) plus its own B tile:
  ///   tx_bytes = (2 · BlockM/2 + BlockN) · 128 = (BlockM + BlockN) · 128
  /// The shared operand's box is always the half tile (no small-M shrinking: both CTAs' halves
  /// must be the same size); rows past M (N) arrive as zeros, or, for a half wholly past M (N),
  /// as real rows from M - 1 (N - 1) on (load() clamps its start): either way they feed only
  /// outputs that are never stored.
  FP8GEMM_HOST_DEVICE static StagePlan stage_plan(int m, int rank) {
    StagePlan plan;
    int const a_rows = kMulticastA ? Policy::kBlockM / kClusterSize : a_box_rows(m);
    int const b_rows = kMulticastB ? Policy::kBlockN / kClusterSize : Policy::kBlockN;
    plan.a = {a_rows, kMulticastA ? rank * a_rows : 0, kMulticastA};
    plan.b = {b_rows, kMulticastB ? rank * b_rows : 0, kMulticastB};
    int const a_landing = kMulticastA ? kClusterSize * a_rows : a_rows;
    int const b_landing = kMulticastB ? kClusterSize * b_rows : b_rows;
    plan.tx_bytes = static_cast<std::uint32_t>((a_landing + b_landing) * kBlockK);
    return plan;
  }

  /// kScaleRing: stage s's Blockwise scales, A's of the tile's BlockM rows (BlockM + 4 floats
  /// from the 16-byte boundary at or below the first; 256 rows in two parts of 128 + 4) and, per
  /// column group, B's among the 4
  /// floats at the start of a 128-byte slot (TMA writes shared memory 128-byte aligned).
  struct ScaleSlots {
    alignas(128) float scale_a[kStages][BlockScales::kRingSlotA];
    alignas(128) float scale_b[kStages][BlockScales::kBGroups][BlockScales::kRingSlotB];
    /// Checked tiles: item i's flags (one per checker warp) in slot (i - 1) % 2; check_full
    /// completes when the three warps wrote theirs, check_empty when every consumer warp read them.
    std::uint64_t check_full[2];
    std::uint64_t check_empty[2];
    int check_ok[2][kCheckWarps];
  };
  struct NoScaleSlots {};
  /// Stage s: A tile [BlockM][128 B] and B tile [BlockN][128 B], each 1024-byte aligned (the
  /// 128-byte swizzle repeats every 8 rows), and with the scale ring its scale slots (the base);
  /// full[s] completes when the stage's bytes landed, empty[s] when every warp of the consumers
  /// that read it (cooperative: both; ping-pong: the tile's one) is done with it.
  struct SharedStorage : std::conditional_t<kScaleRing, ScaleSlots, NoScaleSlots> {
    alignas(1024) std::uint8_t a[kStages][Policy::kStageBytesA];
    alignas(1024) std::uint8_t b[kStages][Policy::kStageBytesB];
    std::uint64_t full[kStages];
    std::uint64_t empty[kStages];
  };

  struct Accumulators {
    float v[Policy::kAtomsM][1][Atom::kAccumulators];  // [m64 row block][1][register]
    FP8GEMM_DEVICE void clear() {
      FP8GEMM_UNROLL
      for (int i = 0; i < Policy::kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kAccumulators; ++r) v[i][0][r] = 0.0f;
      }
    }
  };

  /// Where accumulator register r of m64 row block i of this thread sits in the tile.
  struct StraightCoords {
    int consumer = 0;  // consumer warpgroup 0 or 1
    int t = 0;         // thread in the warpgroup
    FP8GEMM_DEVICE static StraightCoords current() {
      int const tid = arch::thread_idx();
      return {arch::warp_uniform(tid / Arch::kWarpgroupThreads - 1), tid % Arch::kWarpgroupThreads};
    }
    /// This consumer's first row in the tile (ping-pong: every consumer owns the whole tile).
    FP8GEMM_HOST_DEVICE int first_row() const {
      return Policy::kPingPong ? 0 : consumer * Policy::kConsumerRows;
    }
    FP8GEMM_HOST_DEVICE int row(int i, int r) const {
      return first_row() + i * Atom::kM + Atom::acc_row(t, r);
    }
    FP8GEMM_HOST_DEVICE int col(int /*j*/, int r) const { return Atom::acc_col(t, r); }
  };

  /// The swapped policies' map (kSwapAB): the wgmma computed C^T, so its accumulator row is C's
  /// column and its column C's row: register r of thread t of consumer c holds
  ///   C[m0 + acc_col(t, r)][n0 + 64 c + acc_row(t, r)]   (one m64 block of N rows each).
  /// Registers 2q and 2q + 1 are then neighbouring rows of one column of C, not a pair of
  /// neighbouring columns: kTransposed tells the epilogue not to store them as one access.
  struct TransposedCoords {
    static constexpr bool kTransposed = true;
    int consumer = 0;  // consumer warpgroup 0 or 1
    int t = 0;         // thread in the warpgroup
    FP8GEMM_DEVICE static TransposedCoords current() {
      int const tid = arch::thread_idx();
      return {arch::warp_uniform(tid / Arch::kWarpgroupThreads - 1), tid % Arch::kWarpgroupThreads};
    }
    /// The consumer's first wgmma row, a row of B's tile (of N): its 64 rows start there.
    FP8GEMM_HOST_DEVICE int first_row() const { return consumer * Policy::kConsumerRows; }
    FP8GEMM_HOST_DEVICE int row(int /*i*/, int r) const { return Atom::acc_col(t, r); }
    FP8GEMM_HOST_DEVICE int col(int /*j*/, int r) const {
      return first_row() + Atom::acc_row(t, r);
    }
  };
  using Coords = std::conditional_t<kSwapAB, TransposedCoords, StraightCoords>;

  static arch::TmaTensor2d operand_map(void const* base, int rows, int k, std::int64_t ld,
                                       int box_rows) {
    arch::TmaTensor2d t;
    t.base = base;
    t.element = arch::TmaElement::kU8;
    t.inner = static_cast<std::uint64_t>(k);
    t.outer = static_cast<std::uint64_t>(rows);
    t.row_stride_bytes = static_cast<std::uint64_t>(ld);
    t.box_inner = kBlockK;
    t.box_outer = static_cast<std::uint32_t>(box_rows);
    t.swizzle = arch::TmaSwizzle::k128B;
    t.l2_promotion = Policy::kL2Promotion;
    return t;
  }

  /// The tensor maps' rules (TMA: base 16-byte aligned, leading dimension a multiple of 16 bytes,
  /// at least K) and the build: only nvcc's CUDA runtime builds them.
  static Status can_implement(Arguments const& args) {
    if constexpr (!arch::kTmaEncoderAvailable)
      return Status::error(StatusCode::kErrorUnsupported,
                           "the TMA + WGMMA kernel (WgmmaTilePolicy) runs only in CUDA builds "
                           "(nvcc with -gencode=arch=compute_90a,code=sm_90a); the host emulator "
                           "and HIP do not model TMA or wgmma: use the portable policy Sm90Default "
                           "there");
    FP8GEMM_RETURN_IF_ERROR(check_operands(args.a, args.b, LayoutB::kNK));
    if constexpr (kKBlocked) {
      // BlockScales::Rows indexes the scale arrays with 32-bit offsets
      std::int64_t const a_scales = args.scale_a.span(Granularity::kABlockM);
      std::int64_t const b_scales = args.scale_b.span(kScaleBlockN);
      if (a_scales > INT32_MAX || b_scales > INT32_MAX)
        return Status::error(StatusCode::kErrorInvalidSize,
                             "K-blocked scales: the WGMMA kernel indexes a scale array with 32-bit "
                             "offsets, and A's has " +
                                 std::to_string(a_scales) + ", B's " + std::to_string(b_scales) +
                                 " elements (at most 2^31 - 1 each): split the GEMM along M or N");
    }
    Status const sa = arch::check_tma_tensor_2d(map_a(args));
    if (!sa.ok()) return Status::error(sa.code(), "A: " + sa.message());
    Status const sb = arch::check_tma_tensor_2d(map_b(args));
    if (!sb.ok()) return Status::error(sb.code(), "B: " + sb.message());
    return Status::success();
  }

  /// The operands' tensor maps: boxes of stage_plan's copy rows (a half tile for the multicast
  /// operand), so that every copy moves exactly the bytes its full barriers expect.
  static arch::TmaTensor2d map_a(Arguments const& args) {
    return operand_map(args.a.data, args.a.rows, args.a.cols, args.a.ld,
                       stage_plan(args.a.rows, 0).a.rows);
  }
  static arch::TmaTensor2d map_b(Arguments const& args) {
    return operand_map(args.b.data, args.b.rows, args.b.cols, args.b.ld,
                       stage_plan(args.a.rows, 0).b.rows);
  }

  /// The scale ring's maps: a scale array as one row of `span` floats, so that a copy may start
  /// at any 16-byte boundary (A's leading dimension need not be a multiple of 4); boxes of
  /// BlockM + 4 floats (A's scales of a tile's rows for one k-block, from the boundary at or
  /// below the first; 128 + 4, copied twice, for 256 rows) and of 4 (B's: 16 bytes, TMA's least;
  /// WgmmaBlockScales::load_ring reads the one wanted). Elements past the array arrive as zeros.
  static arch::TmaTensor2d scale_map(void const* base, std::int64_t span, int box) {
    arch::TmaTensor2d t;
    t.base = base;
    t.element = arch::TmaElement::kF32;
    t.inner = static_cast<std::uint64_t>(span);
    t.outer = 1;
    t.row_stride_bytes = static_cast<std::uint64_t>((span * 4 + 15) / 16 * 16);
    t.box_inner = static_cast<std::uint32_t>(box);
    t.box_outer = 1;
    return t;
  }
  static constexpr int kScaleBoxB = BlockScales::kRingBoxB;
  /// Bytes the scale ring adds to a stage's full barrier.
  static constexpr std::uint32_t kScaleRingBytes =
      (BlockScales::kRingCopiesA * BlockScales::kRingBoxA + BlockScales::kBGroups * kScaleBoxB) * 4;
  /// Whether a call's scales go through the ring (kScaleRing): A's K-block-major, both arrays
  /// 16-byte aligned and at least a box long; otherwise the consumers load them.
  static bool use_scale_ring(Arguments const& args) {
    if constexpr (kScaleRing) {
      std::int64_t const span_a = args.scale_a.span(Granularity::kABlockM);
      std::int64_t const span_b = args.scale_b.span(kScaleBlockN);
      return args.scale_a.ld != 0 && span_a >= BlockScales::kRingBoxA && span_b >= kScaleBoxB &&
             arch::check_tma_tensor_2d(scale_map(args.scale_a.data, span_a, BlockScales::kRingBoxA))
                 .ok() &&
             arch::check_tma_tensor_2d(scale_map(args.scale_b.data, span_b, kScaleBoxB)).ok();
    } else {
      (void)args;
      return false;
    }
  }

  /// Params from Arguments: encodes the two tensor maps (driver call).
  static Status to_params(ProblemShape const& problem, Arguments const& args, Params& p) {
    FP8GEMM_RETURN_IF_ERROR(arch::encode_tma_descriptor(map_a(args), &p.map_a));
    FP8GEMM_RETURN_IF_ERROR(arch::encode_tma_descriptor(map_b(args), &p.map_b));
    p.scale_a = args.scale_a;
    p.scale_b = args.scale_b;
    p.problem = problem;
    StagePlan const plan = stage_plan(args.a.rows, 0);
    p.stage_tx_bytes = plan.tx_bytes;  // the same for both ranks
    p.tail_a = operand_tail(args.a.rows, plan.a.rows);
    p.tail_b = operand_tail(args.b.rows, plan.b.rows);
    if (p.tail_a.origin >= 0)
      FP8GEMM_RETURN_IF_ERROR(arch::encode_tma_descriptor(
          operand_map(args.a.data, args.a.rows, args.a.cols, args.a.ld, p.tail_a.rows),
          &p.map_a_tail));
    if (p.tail_b.origin >= 0)
      FP8GEMM_RETURN_IF_ERROR(arch::encode_tma_descriptor(
          operand_map(args.b.data, args.b.rows, args.b.cols, args.b.ld, p.tail_b.rows),
          &p.map_b_tail));
    p.scale_ring = use_scale_ring(args);
    if constexpr (kScaleRing) {
      // a map the driver refuses (use_scale_ring checked its rules) leaves the global loads
      if (p.scale_ring)
        p.scale_ring =
            arch::encode_tma_descriptor(
                scale_map(args.scale_a.data, args.scale_a.span(Granularity::kABlockM),
                          BlockScales::kRingBoxA),
                &p.scale_maps.a)
                .ok() &&
            arch::encode_tma_descriptor(
                scale_map(args.scale_b.data, args.scale_b.span(kScaleBlockN), kScaleBoxB),
                &p.scale_maps.b)
                .ok();
    }
    return Status::success();
  }

  /// Arrivals that free a stage: one per consumer warp reading it, in every CTA of the cluster.
  /// A checked tiles' flag slot is this CTA's alone: one per consumer warp of the CTA.
  static constexpr int kCheckArrivals =
      Policy::kConsumersPerTile * Arch::kWarpgroupThreads / Arch::kWaveSize;
  static constexpr int kEmptyArrivals = kClusterSize * kCheckArrivals;

  FP8GEMM_HOST_DEVICE static int k_blocks(Params const& p) {
    return (p.problem.k + kBlockK - 1) / kBlockK;
  }

  /// One thread, before any other use: full[s] expects one arrival (the producer's, with the
  /// stage's transaction bytes), empty[s] one per warp of the consumers that read a stage (both
  /// cooperative consumers; ping-pong: the tile's one), of both CTAs with multicast (each CTA's
  /// producer writes the stage in both). With a cluster the kernel then synchronizes it
  /// (cluster_sync) before any copy or remote arrival.
  FP8GEMM_DEVICE static void init(SharedStorage& s, Params const& p) {
    FP8GEMM_UNROLL
    for (int i = 0; i < kStages; ++i) {
      arch::Mbarrier::init(&s.full[i], 1);
      arch::Mbarrier::init(&s.empty[i], kEmptyArrivals);
    }
    if constexpr (kCheckedTiles) {  // the flag slots: the three checker warps, the consumer warps
      FP8GEMM_UNROLL
      for (int i = 0; i < 2; ++i) {
        arch::Mbarrier::init(&s.check_full[i], kCheckWarps);
        arch::Mbarrier::init(&s.check_empty[i], kCheckArrivals);
      }
    }
    arch::fence_mbarrier_init();
    arch::tma_prefetch_descriptor(&p.map_a);
    arch::tma_prefetch_descriptor(&p.map_b);
    if (p.tail_a.origin >= 0) arch::tma_prefetch_descriptor(&p.map_a_tail);
    if (p.tail_b.origin >= 0) arch::tma_prefetch_descriptor(&p.map_b_tail);
    if constexpr (kScaleRing) {
      if (p.scale_ring) {
        arch::tma_prefetch_descriptor(&p.scale_maps.a);
        arch::tma_prefetch_descriptor(&p.scale_maps.b);
      }
    }
  }

  /// Producer (one elected thread): K-blocks [kb_begin, kb_end) of the tile at (m0, n0) into the
  /// ring. Out-of-bounds rows and K inside a box arrive as zeros (TMA), and still count as
  /// transaction bytes; unclustered, the operands' last partial tiles come through their tail
  /// maps (OperandTail), whose smaller boxes the full barrier expects. Multicast: `rank` is the
  /// CTA's cluster rank; both CTAs of the cluster call this with the same k-blocks (and the same m0
  /// for kA, n0 for kB), each copying its half of the shared tile into both CTAs (stage_plan).
  FP8GEMM_DEVICE static void load(Params const& p, SharedStorage& s, RingPosition& pos, int m0,
                                  int n0, int kb_begin, int kb_end, int rank = 0) {
    if constexpr (kClusterSize == 1) {
      bool hinted = false;  // l2_stream_hints: B's lines evict first, A's last
      std::uint64_t policy_a = 0, policy_b = 0;
      if constexpr (Policy::kL2StreamHints) {
        hinted = l2_stream_hints(p.problem.m);
        if (hinted)
          policy_a = arch::l2_policy_evict_last(), policy_b = arch::l2_policy_evict_first();
      }
      // the tile's maps: a tail map where the tile is the operand's last, partial one
      bool const a_tail = m0 == p.tail_a.origin, b_tail = n0 == p.tail_b.origin;
      arch::TmaDescriptor const* const map_a = a_tail ? &p.map_a_tail : &p.map_a;
      arch::TmaDescriptor const* const map_b = b_tail ? &p.map_b_tail : &p.map_b;
      // expect_tx: the two boxes' bytes (stage_tx_bytes, less the rows a tail box leaves out),
      // and the scale ring's
      bool const ring = kScaleRing && p.scale_ring;
      std::uint32_t const tx_bytes =
          p.stage_tx_bytes -
          static_cast<std::uint32_t>((a_tail ? p.tail_a.box - p.tail_a.rows : 0) +
                                     (b_tail ? p.tail_b.box - p.tail_b.rows : 0)) *
              kBlockK +
          (ring ? kScaleRingBytes : 0);
      for (int kb = kb_begin; kb < kb_end; ++kb) {
        arch::Mbarrier::wait(&s.empty[pos.stage], pos.phase ^ 1);  // waits for: consumers freed it
        arch::Mbarrier::arrive_expect_tx(&s.full[pos.stage], tx_bytes);
        if (hinted) {
          arch::tma_load_2d(s.a[pos.stage], map_a, &s.full[pos.stage], kb * kBlockK, m0, policy_a);
          arch::tma_load_2d(s.b[pos.stage], map_b, &s.full[pos.stage], kb * kBlockK, n0, policy_b);
        } else {
          arch::tma_load_2d(s.a[pos.stage], map_a, &s.full[pos.stage], kb * kBlockK, m0);
          arch::tma_load_2d(s.b[pos.stage], map_b, &s.full[pos.stage], kb * kBlockK, n0);
        }
        if (ring) copy_scales(p, s, pos.stage, m0, n0, kb);
        pos.advance<kStages>();
      }
    } else {
      StagePlan const plan = stage_plan(p.problem.m, rank);
      // A half past the matrix's last row starts at its last row instead: a box wholly outside
      // the tensor is avoided; the rows it brings (or zeros) feed only outputs past M (N).
      int const a_row = min_int(m0 + plan.a.smem_row, p.problem.m - 1);
      int const b_row = min_int(n0 + plan.b.smem_row, p.problem.n - 1);
      // the scale ring: each CTA's producer copies its own tile's scales into its own slots,
      // unicast, on its own full barrier (the operands' halves come from both producers)
      bool const ring = kScaleRing && p.scale_ring;
      std::uint32_t const tx_bytes = p.stage_tx_bytes + (ring ? kScaleRingBytes : 0);
      for (int kb = kb_begin; kb < kb_end; ++kb) {
        // waits for: the consumers of both CTAs freed the stage (this producer writes both)
        arch::Mbarrier::wait(&s.empty[pos.stage], pos.phase ^ 1);
        arch::Mbarrier::arrive_expect_tx(&s.full[pos.stage], tx_bytes);
        copy(&s.a[pos.stage][plan.a.smem_row * kBlockK], &p.map_a, &s.full[pos.stage], kb * kBlockK,
             a_row, plan.a.multicast);
        copy(&s.b[pos.stage][plan.b.smem_row * kBlockK], &p.map_b, &s.full[pos.stage], kb * kBlockK,
             b_row, plan.b.multicast);
        if (ring) copy_scales(p, s, pos.stage, m0, n0, kb);
        pos.advance<kStages>();
      }
    }
  }

  /// Consumer warpgroup `c.consumer`: acc (cleared by the caller) = its rows of the tile at
  /// (m0, n0) over K-blocks [kb_begin, kb_end), a non-empty range (the whole K, or one split of
  /// it). All 128 threads of the warpgroup call it.
  /// checked: check_tile found every scale product of the tile normal (tile_checked).
  FP8GEMM_DEVICE static void multiply(Params const& p, SharedStorage& s, RingPosition& pos, int m0,
                                      int n0, int kb_begin, int kb_end, Coords const& c,
                                      Accumulators& acc, bool checked = false) {
    int const row0 = c.first_row();
    if constexpr (!kPromote) {
      // acc (+)= A·B over the range's K in the tensor core; a stage is released one k-block late,
      // when the next k-block's wgmmas are issued and the previous group has retired.
      int prev = -1;
      for (int kb = kb_begin; kb < kb_end; ++kb) {
        arch::Mbarrier::wait(&s.full[pos.stage], pos.phase);  // waits for: the stage's A and B
        arch::wgmma_fence();
        FP8GEMM_UNROLL
        for (int i = 0; i < Policy::kAtomsM; ++i) {
          FP8GEMM_UNROLL
          for (int k = 0; k < kKSteps; ++k)
            Atom::mma(acc.v[i][0], desc_a(s, pos.stage, row0 + i * Atom::kM, k),
                      desc_b(s, pos.stage, k), kb > kb_begin || k > 0);
        }
        arch::wgmma_commit_group();
        arch::wgmma_wait_group<1>();  // waits for: the previous k-block's wgmmas (stage prev)
        if (prev >= 0) release(s, prev, c.t);
        prev = pos.stage;
        pos.advance<kStages>();
      }
      arch::wgmma_wait_group<0>();  // waits for: the last k-block's wgmmas
      release(s, prev, c.t);
    } else {
      // the same loop with the scales read from the stage (the scale ring) or loaded by the
      // consumers, in the folded form alone where the tile is checked
      auto run = [&](auto ring_c, auto folded_c) {
        constexpr bool kRing = decltype(ring_c)::value, kFolded = decltype(folded_c)::value;
        if constexpr (kPipelinedPromotion)
          multiply_pipelined<kRing, kFolded>(p, s, pos, m0, n0, kb_begin, kb_end, c, acc);
        else
          multiply_row_blocks<kRing, kFolded>(p, s, pos, m0, n0, kb_begin, kb_end, c, acc);
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if constexpr (kScaleRing) {
        if (p.scale_ring) return checked ? run(Yes{}, Yes{}) : run(Yes{}, No{});
      }
      run(No{}, No{});  // row-major A scales, loaded by the consumers: the voting loop
    }
  }

  /// Checked tiles, the test (kCheckedTiles): is every product s_a · s_b that the promotion of
  /// the tile at (m0, n0) over k-blocks [kb_begin, kb_end) takes a normal number, as the
  /// consumers' vote tests it (the same FP32 multiply of the same scales: rows past M read row
  /// M - 1's, column groups past N the last column's, as BlockScales::rows clamps them)? The part
  /// of checker warp w (0 .. kCheckWarps - 1), lane `lane`: k-blocks kb_begin + w, + 3, ..., rows
  /// lane, lane + 32, ... of the tile; the tile's answer is the AND over every warp and lane.
  template <class Params>
  FP8GEMM_HOST_DEVICE static bool products_normal(Params const& p, int m0, int n0, int kb_begin,
                                                  int kb_end, int w, int lane) {
    constexpr int kRows = (Policy::kBlockM + 31) / 32;
    int a[kRows];
    for (int r = 0; r < kRows; ++r) a[r] = BlockScales::a_row(p, m0 + lane + 32 * r);
    int b[BlockScales::kBGroups];
    for (int g = 0; g < BlockScales::kBGroups; ++g) b[g] = BlockScales::b_row(p, n0, g);
    int const ka = p.scale_a.k_stride();
    bool ok = true;  // (host-device: the small loops below unroll without pragmas)
    for (int kb = kb_begin + w; kb < kb_end; kb += kCheckWarps) {
      float sb[BlockScales::kBGroups];
      for (int g = 0; g < BlockScales::kBGroups; ++g) sb[g] = p.scale_b.at(b[g] + kb);
      for (int r = 0; r < kRows; ++r) {
        if (lane + 32 * r < Policy::kBlockM) {
          float const x = p.scale_a.at(a[r] + kb * ka);
          for (int g = 0; g < BlockScales::kBGroups; ++g) ok &= BlockScales::normal(x * sb[g]);
        }
      }
    }
    return ok;
  }
  /// Checked tiles, the checker (kCheckedTiles; the producer warpgroup's warps 1-3, all lanes,
  /// warp w = 0, 1, 2 of them): item j >= 1 of the consumers' walk, the tile at (m0, n0) over
  /// k-blocks [kb_begin, kb_end): products_normal, voted per warp, into item j's flag slot.
  FP8GEMM_DEVICE static void check_tile(Params const& p, SharedStorage& s, int j, int m0, int n0,
                                        int kb_begin, int kb_end, int w, int lane) {
    if constexpr (kCheckedTiles) {
      int const slot = (j - 1) % 2, phase = ((j - 1) / 2) & 1;
      // waits for: every consumer warp read the slot's flags of item j - 2
      arch::Mbarrier::wait(&s.check_empty[slot], phase ^ 1);
      bool const ok = arch::warp_all(products_normal(p, m0, n0, kb_begin, kb_end, w, lane));
      if (lane == 0) {
        s.check_ok[slot][w] = ok;
        arch::Mbarrier::arrive(&s.check_full[slot]);  // release: the flag above with it
      }
    }
  }
  /// Checked tiles, the consumers: item i >= 1's verdict, the same for every warp (so each
  /// warpgroup takes one loop: its wgmmas are issued by all four warps together). Every consumer
  /// warp calls it once per item i >= 1, in order.
  FP8GEMM_DEVICE static bool tile_checked(SharedStorage& s, int i, int t) {
    if constexpr (kCheckedTiles) {
      int const slot = (i - 1) % 2, phase = ((i - 1) / 2) & 1;
      arch::Mbarrier::wait(&s.check_full[slot], phase);  // waits for: item i's three flags
      bool ok = true;
      FP8GEMM_UNROLL
      for (int w = 0; w < kCheckWarps; ++w) ok = ok && s.check_ok[slot][w] != 0;
      // the vote syncs the warp: every lane has read the flags before the slot is given back
      ok = arch::warp_all(ok);
      if (t % Arch::kWaveSize == 0) arch::Mbarrier::arrive(&s.check_empty[slot]);
      return ok;
    } else {
      return false;
    }
  }

 private:
  /// The promoted loop with two partial-sum sets (kPipelinedPromotion). The work is a sequence
  /// of items, E = R Q per k-block (R = kAtomsM row blocks, Q = kPromoteChunks chunks): item
  /// (kb, e) with row block i = e / Q and chunk q = e % Q, for kb in the range and e = 0 .. E-1.
  /// Item j's wgmmas compute partial[j % 2] = A[kb]·B[kb] over row block i's rows and chunk q's
  /// columns in the tensor core, then acc[i][chunk] += partial (· scales); item j's promotion
  /// waits until item j + 1's wgmmas are issued (walk_items). A stage is freed when its
  /// k-block's last item retires.
  /// kRing: K-blocked scales from the stage's scale slots (the scale ring), read once the
  /// stage is full, with the k-block's first item; else from global memory. kFolded: a checked
  /// tile, promoted with the folded form alone (promote_folded).
  template <bool kRing, bool kFolded = false>
  FP8GEMM_DEVICE static void multiply_pipelined(Params const& p, SharedStorage& s,
                                                RingPosition& pos, int m0, int n0, int kb_begin,
                                                int kb_end, Coords const& c, Accumulators& acc) {
    constexpr int kQ = kPromoteChunks;
    constexpr int kE = Policy::kAtomsM * kQ;  // items per k-block
    constexpr int kChunkRegs = ChunkAtom::kAccumulators;
    int const row0 = c.first_row();
    float partial[2][kChunkRegs];
    // sc[h]: the scales of the k-blocks kb with (kb - kb_begin) % 2 == h. One item per k-block:
    // loaded with the k-block's wgmmas, a k-block before they are promoted. Several items: a
    // k-block's scales are loaded with the previous k-block's second item, into the slot of the
    // k-block before that, whose last item has just been promoted (the first k-block's before
    // item 0); loaded with their own first item instead they had only one item's wgmmas to land
    // under and the consumers waited for them (docs/performance.md#wgmma-block-scale-loads).
    // Through the ring they are in the stage: read with the k-block's first item, after the
    // stage's full wait, by every item count.
    constexpr bool kScalesAhead = kKBlocked && kE > 1 && !kRing;
    BlockScales sc[2];
    [[maybe_unused]] auto const rows = scale_rows<kRing>(p, m0, row0, n0, c.t);
    int stage[2] = {0, 0};
    // Item (kb, e) into set b; h = (kb - kb_begin) % 2 (compile-time b, e, h).
    auto issue = [&](auto b_c, auto e_c, auto h_c, int kb) {
      constexpr int b = decltype(b_c)::value, e = decltype(e_c)::value;
      constexpr int i = e / kQ, q = e % kQ;
      if constexpr (e == 0)
        arch::Mbarrier::wait(&s.full[pos.stage], pos.phase);  // waits for: the stage's A and B
      stage[b] = pos.stage;
      arch::wgmma_fence();  // set b was last read by the promotion two items ago
      FP8GEMM_UNROLL
      for (int k = 0; k < kKSteps; ++k)
        ChunkAtom::mma(partial[b], desc_a(s, pos.stage, row0 + i * Atom::kM, k),
                       desc_b(s, pos.stage, k, q * ChunkAtom::kN), k > 0);
      arch::wgmma_commit_group();
      // Scales loaded after the item's wgmmas are issued: ptxas moves the warp-uniform B scale
      // into a uniform register right after its load, which waits for the load; issued before
      // the wgmmas, that wait held their issue (docs/performance.md#wgmma-block-scale-loads).
      if constexpr (kKBlocked && !kScalesAhead && e == 0) {
        if constexpr (kRing)
          sc[decltype(h_c)::value].load_ring(s.scale_a[pos.stage], s.scale_b[pos.stage], rows, kb);
        else
          sc[decltype(h_c)::value].load(p, rows, kb);
      }
      if constexpr (kScalesAhead && e == 1)  // the last k-block loads its own again: in bounds
        sc[1 - decltype(h_c)::value].load(p, rows, kb + 1 < kb_end ? kb + 1 : kb);
      if constexpr (e == kE - 1) pos.advance<kStages>();
    };
    // Promotes set b (item e) once at most `pending` later groups are still running; frees the
    // stage after the k-block's last item.
    auto retire = [&](auto b_c, auto e_c, auto h_c, auto pending_c) {
      constexpr int b = decltype(b_c)::value, e = decltype(e_c)::value;
      constexpr int i = e / kQ, q = e % kQ;
      arch::wgmma_wait_group<decltype(pending_c)::value>();  // waits for: set b's wgmmas
      // the wait names no registers: pinned, the adds below cannot be hoisted above it
      arch::wgmma_pin_accumulators(partial[b]);
      if constexpr (e == kE - 1) release(s, stage[b], c.t);
      if constexpr (kFolded)
        sc[decltype(h_c)::value].promote_folded(acc.v[i][0], partial[b], i, q * kChunkRegs);
      else if constexpr (kKBlocked)
        sc[decltype(h_c)::value].promote(acc.v[i][0], partial[b], i, q * kChunkRegs);
      else
        promote_unscaled(acc.v[i][0], partial[b], q * kChunkRegs);
    };
    if constexpr (kScalesAhead) sc[0].load(p, rows, kb_begin);
    walk_items<kE>(kb_begin, kb_end, issue, retire);
  }

 public:
  /// The pipelined loop's walk over k-blocks [kb_begin, kb_end) (non-empty), E items each:
  /// issue(b, e, h, kb) starts item (kb, e) into partial-sum set b, h = (kb - kb_begin) % 2;
  /// retire(b, e, h, pending) promotes item (kb, e) of set b once at most `pending` later
  /// groups run (b, e, h and pending are integral constants):
  ///   issue(0); for j = 1..: { issue(j); retire(j - 1); }  retire(last)
  /// Item 0 is issued before the loop, which then walks trips of 2 E items (two k-blocks)
  /// unrolled, so the set, item and scale indices stay compile-time (registers, not local
  /// memory) and the steady state has no test of "is there an item to retire" (ptxas serialized
  /// the chunked kernels' wgmmas with one, C7514). Host-device: the host tests walk it.
  template <int kE, class Issue, class Retire>
  FP8GEMM_HOST_DEVICE static void walk_items(int kb_begin, int kb_end, Issue& issue,
                                             Retire& retire) {
    constexpr int kTripItems = 2 * kE;  // even, a multiple of E: set and item fixed per u
    using Pending0 = std::integral_constant<int, 0>;
    using Pending1 = std::integral_constant<int, 1>;
    using Zero = std::integral_constant<int, 0>;
    issue(Zero{}, Zero{}, Zero{}, kb_begin);  // item 0
    for (int j0 = 1;; j0 += kTripItems) {
      // Item j = j0 + u: k-block kb_begin + j / E, item e = j % E of it, set j % 2. j0 - 1 is a
      // multiple of kTripItems = 2 E, so its item, set and k-block parity are (u + 1) % E,
      // (u + 1) % 2 and ((u + 1) / E) % 2, and item j - 1's are e - 1, 1 - b and (u / E) % 2.
      // false: all retired.
      auto item = [&](auto u_c) {
        constexpr int u = decltype(u_c)::value, e = (u + 1) % kE, b = (u + 1) % 2;
        using Set = std::integral_constant<int, b>;
        using Item = std::integral_constant<int, e>;
        using Half = std::integral_constant<int, ((u + 1) / kE) % 2>;
        using PrevSet = std::integral_constant<int, 1 - b>;
        using PrevItem = std::integral_constant<int, (e + kE - 1) % kE>;
        using PrevHalf = std::integral_constant<int, (u / kE) % 2>;
        int const kb = kb_begin + (j0 + u) / kE;
        if constexpr (e == 0) {
          if (kb == kb_end) {  // item j - 1 was the last
            retire(PrevSet{}, PrevItem{}, PrevHalf{}, Pending0{});
            return false;
          }
        }
        issue(Set{}, Item{}, Half{}, kb);
        retire(PrevSet{}, PrevItem{}, PrevHalf{}, Pending1{});
        return true;
      };
      if (!unrolled_all(item, std::make_integer_sequence<int, kTripItems>{})) return;
    }
  }

 private:
  /// The promoted loop with one partial-sum set (two m64 row blocks per consumer, or no pair of
  /// chunk sets fits): per k-block and row block i, partial = A·B over 128 K in the tensor core
  /// (14 significant bits, truncating), then acc[i] += partial (· scales) in FP32 registers once
  /// the row block's wgmmas retired; the cooperative kernel's other consumer keeps the tensor
  /// core busy meanwhile. kRing and kFolded as multiply_pipelined's: through the ring, the
  /// k-block's scales are read from the stage under the first row block's wgmmas, else loaded
  /// from global memory before the stage's wait.
  template <bool kRing, bool kFolded = false>
  FP8GEMM_DEVICE static void multiply_row_blocks(Params const& p, SharedStorage& s,
                                                 RingPosition& pos, int m0, int n0, int kb_begin,
                                                 int kb_end, Coords const& c, Accumulators& acc) {
    int const row0 = c.first_row();
    float partial[Atom::kAccumulators];
    [[maybe_unused]] auto const rows = scale_rows<kRing>(p, m0, row0, n0, c.t);
    for (int kb = kb_begin; kb < kb_end; ++kb) {
      BlockScales sc;
      if constexpr (kKBlocked && !kRing) sc.load(p, rows, kb);  // issued before the stage's wait
      arch::Mbarrier::wait(&s.full[pos.stage], pos.phase);      // waits for: the stage's A and B
      FP8GEMM_UNROLL
      for (int i = 0; i < Policy::kAtomsM; ++i) {
        arch::wgmma_fence();  // the previous row block's promotion read `partial`
        FP8GEMM_UNROLL
        for (int k = 0; k < kKSteps; ++k)
          Atom::mma(partial, desc_a(s, pos.stage, row0 + i * Atom::kM, k), desc_b(s, pos.stage, k),
                    k > 0);
        arch::wgmma_commit_group();
        if constexpr (kRing) {
          if (i == 0) sc.load_ring(s.scale_a[pos.stage], s.scale_b[pos.stage], rows, kb);
        }
        arch::wgmma_wait_group<0>();  // waits for: this row block's wgmmas (partial is read)
        arch::wgmma_pin_accumulators(partial);
        if (i == Policy::kAtomsM - 1) release(s, pos.stage, c.t);
        if constexpr (kFolded)
          sc.promote_folded(acc.v[i][0], partial, i);
        else if constexpr (kKBlocked)
          sc.promote(acc.v[i][0], partial, i);
        else
          promote_unscaled(acc.v[i][0], partial);
      }
      pos.advance<kStages>();
    }
  }

  /// K-blocked: where the thread's scales of the tile at (m0, n0) start (BlockScales::Rows), or
  /// its rows in the stage's A-scale slot (kRing: BlockScales::RingRows); else nothing.
  /// row0: the consumer's first row in the tile, of M, or swapped (kSwapAB) of N.
  template <bool kRing = false>
  FP8GEMM_DEVICE static auto scale_rows(Params const& p, int m0, int row0, int n0, int t) {
    if constexpr (kRing)
      return BlockScales::ring_rows(p, m0, m0 + row0, n0, t);
    else if constexpr (kKBlocked && kSwapAB)
      return BlockScales::rows(p, m0, n0 + row0, t);
    else if constexpr (kKBlocked)
      return BlockScales::rows(p, m0 + row0, n0, t);
    else
      return 0;
  }

  /// f(integral_constant<int, U>) for U = 0, 1, ... in order while it returns true; false if one
  /// returned false.
  template <class F, int... U>
  FP8GEMM_HOST_DEVICE static bool unrolled_all(F& f, std::integer_sequence<int, U...>) {
    return (f(std::integral_constant<int, U>{}) && ...);
  }

  /// wgmma's A operand at k-step k: rows [row, row + 64) of the stage's A tile; swapped, of its
  /// B tile ([BlockNRows][128 B]).
  /// Both are stage 0's descriptor advanced by the stage's offset: stage 0's is the same every
  /// k-block (computed once), the advance one add on its low word.
  FP8GEMM_DEVICE static std::uint64_t desc_a(SharedStorage& s, int stage, int row, int k) {
    std::uint8_t const* tile = kSwapAB ? s.b[0] : s.a[0];
    constexpr std::uint32_t kStageBytes = kSwapAB ? sizeof(s.b[0]) : sizeof(s.a[0]);
    return arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(&tile[row * kBlockK]))
        .advanced_units(stage * (kStageBytes / 16) + k * (Atom::kKStepBytes / 16))
        .bits;
  }
  /// wgmma's B operand at k-step k: the stage's B tile (its N rows); swapped, its A tile
  /// ([BlockMCols][128 B]: the wgmma N = 8..256 rows of A, 8-row groups 1024 B apart).
  /// `row`: the first of a promotion chunk's rows (a multiple of 8: whole swizzle atoms).
  FP8GEMM_DEVICE static std::uint64_t desc_b(SharedStorage& s, int stage, int k, int row = 0) {
    std::uint8_t const* tile = kSwapAB ? s.a[0] : s.b[0];
    constexpr std::uint32_t kStageBytes = kSwapAB ? sizeof(s.a[0]) : sizeof(s.b[0]);
    return arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(&tile[row * kBlockK]))
        .advanced_units(stage * (kStageBytes / 16) + k * (Atom::kKStepBytes / 16))
        .bits;
  }

  /// One arrival per consumer warp on empty[stage]: this warp no longer reads the stage. With a
  /// cluster, on empty[stage] of every CTA of it (lane r arrives on rank r's), since both
  /// producers write this CTA's stage.
  FP8GEMM_DEVICE static void release(SharedStorage& s, int stage, int t) {
    if constexpr (kClusterSize == 1) {
      if (t % Arch::kWaveSize == 0) arch::Mbarrier::arrive(&s.empty[stage]);
    } else {
      int const lane = t % Arch::kWaveSize;
      if (lane < kClusterSize) arch::Mbarrier::arrive_cluster(&s.empty[stage], lane);
    }
  }

  /// One operand copy of a stage: multicast into every CTA of the cluster, or into this one.
  FP8GEMM_DEVICE static void copy(std::uint8_t* dst, arch::TmaDescriptor const* map,
                                  std::uint64_t* full, int k0, int row, bool multicast) {
    if (multicast)
      arch::tma_load_2d_multicast(dst, map, full, k0, row, kClusterMask);
    else
      arch::tma_load_2d(dst, map, full, k0, row);
  }

  /// The scale ring's copies of k-block kb into stage `stage`: A's scales of the tile's rows and
  /// B's of its column groups (WgmmaBlockScales::ring_offset_a / _b).
  FP8GEMM_DEVICE static void copy_scales(Params const& p, SharedStorage& s, int stage, int m0,
                                         int n0, int kb) {
    if constexpr (kScaleRing) {
      FP8GEMM_UNROLL
      for (int c = 0; c < BlockScales::kRingCopiesA; ++c)
        arch::tma_load_2d(&s.scale_a[stage][c * BlockScales::kRingPartA], &p.scale_maps.a,
                          &s.full[stage], BlockScales::ring_offset_a(p, m0, kb, c), 0);
      FP8GEMM_UNROLL
      for (int g = 0; g < BlockScales::kBGroups; ++g)
        arch::tma_load_2d(s.scale_b[stage][g], &p.scale_maps.b, &s.full[stage],
                          BlockScales::ring_offset_b(p, n0, g, kb), 0);
    } else {
      (void)p, (void)s, (void)stage, (void)m0, (void)n0, (void)kb;
    }
  }

  FP8GEMM_HOST_DEVICE static int min_int(int a, int b) { return a < b ? a : b; }

  /// acc[r0 ..] += partial
  template <int Regs>
  FP8GEMM_DEVICE static void promote_unscaled(float* acc, float const (&partial)[Regs],
                                              int r0 = 0) {
    FP8GEMM_UNROLL
    for (int r = 0; r < Regs; ++r) acc[r0 + r] += partial[r];
  }
};

}  // namespace fp8gemm
