// SPDX-License-Identifier: MIT
/// The mainloops' compile-time rules as values (mainloop layer): what LdsMultistageMainloop and
/// TmaWgmmaMainloop need of (Policy, Granularity, LayoutB, promotion), each rule's bool next to its
/// sentence. They evaluate on any candidate without a compile error (the policy is read through its
/// rules trait, never instantiated), so a dispatcher can test kValid; the mainloops' static_asserts
/// test the same values with the same sentences. The rules' list: policy/tile_policy.hpp (portable)
/// and policy/wgmma_policy.hpp (W1-W11).
#pragma once

#include <type_traits>

#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/policy/rule.hpp"
#include "fp8gemm/policy/tile_policy.hpp"
#include "fp8gemm/policy/wgmma_policy.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/tile/tile_rules.hpp"

namespace fp8gemm {

/// The first failing sentence of two rule sets (a policy's, then a mainloop's).
constexpr char const* first_of(char const* a, char const* b) {
  return a != nullptr ? a : b;
}

/// How a portable mainloop accumulates (PromotionPlan's numbers) and its register rule, from the
/// policy's rules (Shape: TilePolicyRules).
template <class Shape, class Granularity, int PromoteKV>
struct PromotionRules {
  using Atom = typename Shape::Atom;
  using Arch = typename Shape::Arch;
  static constexpr bool kHardwareMx =
      std::is_same_v<Granularity, Mx32> && arch::has_hardware_mx32<Atom>::value;
  static constexpr bool kKBlockedScales = Granularity::kBlockK > 0 && !kHardwareMx;
  static constexpr int kPromoteK =
      kKBlockedScales
          ? (Granularity::kBlockK < Shape::kBlockK ? Granularity::kBlockK : Shape::kBlockK)
          : PromoteKV;
  static constexpr bool kUsePartial = kPromoteK > 0;

#define FP8GEMM_RULE_PARTIAL_ACCUMULATOR_BUDGET                                                \
  "promoted/K-blocked accumulation needs a second set of accumulators, and with it more than " \
  "3/4 of the registers a thread may use at this block size: use fewer waves per SIMD or a "   \
  "smaller wave tile (gfx950 with Blockwise scales: Cdna4KBlocked)"
  static constexpr bool kPartialBudget =
      !kUsePartial || (2 * Shape::kAccumulators <= Arch::kMaxAccumulatorRegs &&
                       2 * Shape::kAccumulators <= Shape::kRegisterBudget * 3 / 4);
};

/// LdsMultistageMainloop<Policy, Granularity, LayoutB, PromoteKV>'s rules (9, 11-17 and the
/// atom properties of tile_policy.hpp's list), after the policy's own (TilePolicyRules).
template <class Policy, class Granularity, LayoutB kLayoutB, int PromoteKV>
struct LdsMultistageRules {
  using Shape = typename TilePolicyRulesOf<Policy>::type;
  using Atom = typename Shape::Atom;
  using Arch = typename Shape::Arch;
  using Promotion = PromotionRules<Shape, Granularity, PromoteKV>;
  static constexpr int kPitch = Shape::kBlockK + Atom::kLdsReadBytes;  // FragmentReadLayout's
  static constexpr int kLdsBytes = Shape::kStages * (Shape::kBlockM + Shape::kBlockN) * kPitch;
  static constexpr int kScaleBlockK =
      Promotion::kKBlockedScales ? Granularity::kBlockK : Shape::kBlockK;

#define FP8GEMM_RULE_LDS_BUDGET \
  "the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages"
  static constexpr bool kLdsBudget = kLdsBytes <= Arch::kLdsBytes;
  static constexpr bool kFragmentReads =
      tile_rules::fragment_reads_conflict_free(Shape::kBlockK, Atom::kLdsReadBytes);
  static constexpr bool kRowVectors = tile_rules::rows_are_vectors(Shape::kBlockK);
  static constexpr bool kCopyVectors =
      tile_rules::whole_vectors_per_thread(Shape::kBlockM, Shape::kBlockK, Shape::kThreads) &&
      (kLayoutB != LayoutB::kNK ||
       tile_rules::whole_vectors_per_thread(Shape::kBlockN, Shape::kBlockK, Shape::kThreads));
  static constexpr bool kAsyncVectors = !Arch::kAsyncCopy || tile_rules::async_vectors(kPitch);
  static constexpr bool kKnBBlocks =
      kLayoutB != LayoutB::kKN ||
      tile_rules::transposed_b_blocks(Shape::kBlockN, Shape::kBlockK, Shape::kThreads);
#define FP8GEMM_RULE_SCALE_BLOCK_K_DIVIDES \
  "K-blocked scales: the scale block along K and BlockK must divide one another"
  static constexpr bool kScaleBlockKDivides =
      rules::divides(Shape::kBlockK, kScaleBlockK) || rules::divides(kScaleBlockK, Shape::kBlockK);
#define FP8GEMM_RULE_BLOCKWISE_K_ATOMS                                               \
  "Blockwise scales: the K-scale block (Blockwise<.., .., BlockK>) must be a "       \
  "multiple of the atom's K (Atom::kK: 128 for gfx950's 16x16x128 MFMA, 64 for its " \
  "32x32x64, 32 for gfx942's 16x16x32 and Hopper's atom, 16 for gfx942's 32x32x16)"
  static constexpr bool kBlockwiseKAtoms =
      !IsBlockwise<Granularity>::value || rules::divides(Atom::kK, Granularity::kBlockK);
#define FP8GEMM_RULE_MX32_SOFTWARE_ATOM_K                                               \
  "MX-32 scales on an atom without hardware E8M0 scaling are applied per 32 K, so the " \
  "atom's K must divide 32"
  static constexpr bool kMx32AtomK =
      !(Promotion::kKBlockedScales && std::is_same_v<Granularity, Mx32>) ||
      rules::divides(Atom::kK, Promotion::kPromoteK);
#define FP8GEMM_RULE_PROMOTION_ATOMS \
  "promotion interval (PromoteEvery<K>) must be a multiple of the atom's K"
  static constexpr bool kPromotionAtoms =
      Promotion::kKBlockedScales || rules::divides(Atom::kK, Promotion::kPromoteK);
#define FP8GEMM_RULE_HARDWARE_MX32_ATOM_K                                                 \
  "hardware MX-32 atoms take one E8M0 byte per lane, lane l's for row l % kM and the MX " \
  "block 32 * (l / kM) of the atom's K: kK must be 32 * (wave size / kM)"
  static constexpr bool kHardwareMxAtomK =
      !Promotion::kHardwareMx || Atom::kK == 32 * rules::quotient(Atom::kThreads, Atom::kM);

  /// The policy's first failing rule, else the mainloop's; nullptr when the pair is valid.
  static constexpr char const* why_not() {
    // A local array: nvcc (EDG) sees a class template's static member array with its bound
    // still unknown while kValid's initializer calls why_not(), and refuses first_failing.
    constexpr Rule kRules[] = {
        {kLdsBudget, FP8GEMM_RULE_LDS_BUDGET},
        {kFragmentReads, FP8GEMM_RULE_FRAGMENT_READ_PITCH},
        {kRowVectors, FP8GEMM_RULE_COPY_ROW_VECTORS},
        {kCopyVectors, FP8GEMM_RULE_COPY_VECTORS},
        {kAsyncVectors, FP8GEMM_RULE_ASYNC_COPY_VECTORS},
        {kKnBBlocks, FP8GEMM_RULE_KN_B_BLOCKS},
        {kScaleBlockKDivides, FP8GEMM_RULE_SCALE_BLOCK_K_DIVIDES},
        {kBlockwiseKAtoms, FP8GEMM_RULE_BLOCKWISE_K_ATOMS},
        {kMx32AtomK, FP8GEMM_RULE_MX32_SOFTWARE_ATOM_K},
        {kPromotionAtoms, FP8GEMM_RULE_PROMOTION_ATOMS},
        {kHardwareMxAtomK, FP8GEMM_RULE_HARDWARE_MX32_ATOM_K},
        {Promotion::kPartialBudget, FP8GEMM_RULE_PARTIAL_ACCUMULATOR_BUDGET},
    };
    return first_of(Shape::why_not(), first_failing(kRules));
  }
  static constexpr bool kValid = why_not() == nullptr;
};

/// B's scale block along N: Blockwise<bm, bn, bk>'s bn; 1 for the other granularities.
template <class G>
constexpr int scale_block_n() {
  if constexpr (IsBlockwise<G>::value)
    return G::kBBlockN;
  else
    return 1;
}

/// TmaWgmmaMainloop<Policy, Granularity, PromoteK>'s rules, with the kernel's B layout (W1-W5,
/// W7, W9, W11 of wgmma_policy.hpp's list), after the policy's own (WgmmaPolicyRules or
/// WgmmaSwapABPolicyRules).
template <class Policy, class Granularity, int PromoteK, LayoutB kLayoutB = LayoutB::kNK>
struct TmaWgmmaRules {
  using Of = WgmmaPolicyRulesOf<Policy>;
  using Shape = typename Of::type;
  static constexpr bool kKBlocked = IsBlockwise<Granularity>::value;
  static constexpr bool kPromote = PromoteK > 0 || kKBlocked;
  static constexpr int kScaleBlockN = scale_block_n<Granularity>();
  /// TmaWgmmaMainloop's register count: accumulators plus the promotion's partial sums.
  static constexpr int kAccumulatorRegisterLimit = Shape::kConsumerRegisters - 40;
  static constexpr int promote_chunks() {
    for (int q = 1; q <= 4; q *= 2) {
      int const n = Shape::kAtomN / q;
      if (Shape::kAtomN % q == 0 && n % 8 == 0 && arch::sm90_wgmma_has_n(n) &&
          Shape::kAccumulators + n <= kAccumulatorRegisterLimit)
        return q;
    }
    return 0;
  }
  static constexpr bool kPipelinedPromotion =
      kPromote && Shape::kAtomsM == 1 && promote_chunks() > 0;
  static constexpr int kPromoteChunks = kPipelinedPromotion ? promote_chunks() : 1;
  static constexpr int kAccumulatorRegisters =
      Shape::kAccumulators + (!kPromote             ? 0
                              : kPipelinedPromotion ? 2 * (Shape::kAtomN / kPromoteChunks / 2)
                                                    : Shape::kAtomN / 2);

#define FP8GEMM_RULE_WGMMA_KN_B                                                     \
  "FP8 wgmma reads B K-major only: store B as [N, K] (LayoutB::kNK; "               \
  "transpose_kn_to_nk_gpu / _host in quant/transpose.hpp converts a [K, N] weight " \
  "once), or use the portable policy Sm90Default, which reads [K, N]"
  static constexpr bool kBKMajor = kLayoutB == LayoutB::kNK;
#define FP8GEMM_RULE_WGMMA_MULTICAST_HALVES                                         \
  "TmaWgmmaMainloop: the half tile of the multicast operand (BlockM / 2 rows of A " \
  "with kA, BlockN / 2 of B with kB) must be whole 8-row swizzle atoms"
  static constexpr bool kMulticastHalves = (!Shape::kMulticastA || (Shape::kBlockM / 2) % 8 == 0) &&
                                           (!Shape::kMulticastB || (Shape::kBlockN / 2) % 8 == 0);
#define FP8GEMM_RULE_WGMMA_MX32                                                      \
  "MX-32 scales are not offered by the WGMMA kernel (one scale per 32 K would be a " \
  "promotion per wgmma): use the portable policy Sm90Default for Mx32 on Hopper"
  static constexpr bool kNoMx32 = !std::is_same_v<Granularity, Mx32>;
#define FP8GEMM_RULE_WGMMA_PROMOTION_INTERVAL                                        \
  "WGMMA policies promote once per 128-K block (PromoteEvery<128>, the default) or " \
  "never (FastAccumulation)"
  static constexpr bool kPromotionInterval = PromoteK == 0 || PromoteK == Shape::kBlockK;
#define FP8GEMM_RULE_WGMMA_BLOCKWISE_K                             \
  "Blockwise scales on the WGMMA kernel: the K block must be 128 " \
  "(Blockwise<bm, bn, 128>), the k-block at which it promotes"
  static constexpr bool kBlockwiseK = !kKBlocked || Granularity::kBlockK == Shape::kBlockK;
#define FP8GEMM_RULE_WGMMA_SWAPAB_BLOCKWISE                                                  \
  "Blockwise scales with swapped operands (WgmmaSwapABPolicy, Sm90WgmmaDecode): at most 64 " \
  "columns of A (each accumulator column, a row of C, holds its own A scale: with 128 "      \
  "they and their loads do not fit beside the accumulators, ptxas spills), and B's scale "   \
  "block along N a multiple of a consumer's 64 rows of N (one B scale per consumer and "     \
  "k-block)"
  /// (The A scales and their offsets, BlockMCols / 4 each and two k-blocks' sets of scales, are
  /// not in the register count: at 64 columns they fit beside 32 accumulators and 2 x 32 partial
  /// sums, 202 registers; at 128 ptxas spilled, so the limit is the rule.)
  static constexpr bool kSwapABBlockwise =
      !Shape::kSwapAB || !kKBlocked || (Shape::kBlockM <= 64 && rules::divides(64, kScaleBlockN));
#define FP8GEMM_RULE_WGMMA_L2_STREAM_HINTS                                         \
  "kL2StreamHints: the L2 hints mark B as the operand a single tile row streams; " \
  "offered on unclustered policies without swapped operands only"
  static constexpr bool kL2Hints =
      !Of::kL2StreamHints || (Shape::kClusterSize == 1 && !Shape::kSwapAB);
#define FP8GEMM_RULE_WGMMA_BLOCKWISE_N                                                \
  "Blockwise scales on the WGMMA kernel: B's scale block along N must be a multiple " \
  "of 8 that divides BlockN or is a multiple of it (each group of 8 accumulator "     \
  "columns then has one B scale)"
  static constexpr bool kBlockwiseN =
      !kKBlocked || (kScaleBlockN % 8 == 0 && (rules::divides(kScaleBlockN, Shape::kBlockN) ||
                                               rules::divides(Shape::kBlockN, kScaleBlockN)));
#define FP8GEMM_RULE_WGMMA_ACCUMULATOR_BUDGET                                      \
  "WGMMA: accumulators (+ the promotion's partial sums) above 192 registers per "  \
  "consumer thread leave too little of the 232 for addresses and scales: use "     \
  "FastAccumulation or a smaller tile (128 x 256 promoted: one m64 row block per " \
  "consumer, promoted in chunks of N)"
  static constexpr bool kAccumulatorBudget = kAccumulatorRegisters <= kAccumulatorRegisterLimit;

  static constexpr char const* why_not() {
    // A local array: nvcc (EDG) sees a class template's static member array with its bound
    // still unknown while kValid's initializer calls why_not(), and refuses first_failing.
    constexpr Rule kRules[] = {
        {kBKMajor, FP8GEMM_RULE_WGMMA_KN_B},
        {kMulticastHalves, FP8GEMM_RULE_WGMMA_MULTICAST_HALVES},
        {kNoMx32, FP8GEMM_RULE_WGMMA_MX32},
        {kPromotionInterval, FP8GEMM_RULE_WGMMA_PROMOTION_INTERVAL},
        {kBlockwiseK, FP8GEMM_RULE_WGMMA_BLOCKWISE_K},
        {kSwapABBlockwise, FP8GEMM_RULE_WGMMA_SWAPAB_BLOCKWISE},
        {kL2Hints, FP8GEMM_RULE_WGMMA_L2_STREAM_HINTS},
        {kBlockwiseN, FP8GEMM_RULE_WGMMA_BLOCKWISE_N},
        {kAccumulatorBudget, FP8GEMM_RULE_WGMMA_ACCUMULATOR_BUDGET},
    };
    return first_of(Shape::why_not(), first_failing(kRules));
  }
  static constexpr bool kValid = why_not() == nullptr;
};

}  // namespace fp8gemm
