// SPDX-License-Identifier: MIT
// The rules as constexpr values (policy/validity.hpp): every candidate here, valid or not, is
// evaluated without instantiating it (this file compiles), kValid tells them apart and why_not()
// names the first failing rule with the static_assert's sentence (tests/compile_fail checks that
// the same sentence stops a compile).
#include <gtest/gtest.h>

#include <string>

#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/policy/validity.hpp"

namespace fp8gemm {
namespace {

using arch::Cdna3Mma16x16x32;
using arch::Cdna4Mma16x16x128;
using arch::Sm90MmaFp8ViaF16;
using Cdna4 = Cdna4Mma16x16x128<e4m3fn, e4m3fn>;
using Cdna3 = Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>;
using Sm90 = Sm90MmaFp8ViaF16<e4m3fn, e4m3fn>;

std::string why(char const* s) {
  return s == nullptr ? std::string("(valid)") : std::string(s);
}

template <class P>
std::string policy_why() {
  return why(policy_why_not<P>());
}
template <class P, class G, LayoutB LB = LayoutB::kNK, class Acc = AtomDefaultAccumulation>
std::string config_why() {
  return why(config_why_not<P, G, LB, Acc>());
}

// The defaults are valid, as policies and in the configs they ship for.
static_assert(policy_is_valid<Cdna4Default<>>() && policy_is_valid<Cdna4KBlocked<>>() &&
              policy_is_valid<Cdna3Default<>>() && policy_is_valid<Sm90Default<>>() &&
              policy_is_valid<Sm90SmallM<>>());
static_assert(policy_is_valid<Sm90WgmmaDefault<>>() && policy_is_valid<Sm90WgmmaLarge<>>() &&
              policy_is_valid<Sm90WgmmaSmallM<>>() && policy_is_valid<Sm90WgmmaMediumM<>>() &&
              policy_is_valid<Sm90WgmmaDecode<8>>() && policy_is_valid<Sm90WgmmaDecode<128>>() &&
              policy_is_valid<Sm90WgmmaDefaultMulticastA<>>());
static_assert(config_is_valid<Cdna4Default<>, PerTensor, LayoutB::kNK, AtomDefaultAccumulation>());
static_assert(config_is_valid<Cdna4Default<>, Mx32, LayoutB::kKN, AtomDefaultAccumulation>());
static_assert(config_is_valid<Cdna4KBlocked<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                              AtomDefaultAccumulation>());
static_assert(config_is_valid<Cdna3Default<>, Blockwise<1, 128, 128>, LayoutB::kKN,
                              AtomDefaultAccumulation>());
static_assert(config_is_valid<Sm90Default<>, PerTensor, LayoutB::kKN, AtomDefaultAccumulation>());
static_assert(config_is_valid<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                              AtomDefaultAccumulation>());
static_assert(config_is_valid<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, FastAccumulation>());
static_assert(
    config_is_valid<Sm90WgmmaMediumM<>, PerTensor, LayoutB::kNK, AtomDefaultAccumulation>());
static_assert(config_is_valid<Sm90WgmmaDecode<16>, PerChannel, LayoutB::kNK, FastAccumulation>());
static_assert(policy_why_not<Sm90WgmmaDefault<>>() == nullptr);

// The traits agree with what the policies compute where both exist.
static_assert(TilePolicyRulesOf<Cdna4Default<>>::type::kAccumulators ==
              Cdna4Default<>::kAccumulators);
static_assert(TmaWgmmaRules<Sm90WgmmaLarge<>, PerTensor, 128>::kPromoteChunks ==
              TmaWgmmaMainloop<Sm90WgmmaLarge<>, PerTensor, 128>::kPromoteChunks);

TEST(PolicyRules, DefaultsAreValid) {
  EXPECT_EQ(policy_why<Cdna4Default<>>(), "(valid)");
  EXPECT_EQ((config_why<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>>()), "(valid)");
}

TEST(PolicyRules, TilePolicyShapeRules) {
  EXPECT_EQ((policy_why<TilePolicy<0, 256, 128, 4, 2, Cdna4>>()),
            "tile sizes and wave counts must be positive");
  EXPECT_EQ((policy_why<TilePolicy<256, 256, 128, 0, 2, Cdna4>>()),  // no division by zero
            "tile sizes and wave counts must be positive");
  EXPECT_EQ((policy_why<TilePolicy<33, 8, 1024, 2, 1, Sm90, 2>>()),
            "the block tile must split evenly over the waves");
  EXPECT_EQ((policy_why<TilePolicy<24, 16, 128, 1, 1, Cdna4>>()),
            "the wave tile's M extent must be a whole number of atoms (Atom::kM)");
  EXPECT_EQ((policy_why<TilePolicy<16, 24, 128, 1, 1, Cdna4>>()),
            "the wave tile's N extent must be a whole number of atoms (Atom::kN)");
  EXPECT_EQ((policy_why<TilePolicy<256, 256, 64, 4, 2, Cdna4>>()),
            "BlockK must be a multiple of the atom's K");
  EXPECT_EQ((policy_why<TilePolicy<128, 256, 40, 2, 2, Cdna3>>()),
            std::string(FP8GEMM_RULE_TILE_BLOCK_K_ATOMS));  // 40 % 32: rule 5 before rule 6
  EXPECT_EQ((policy_why<TilePolicy<256, 256, 128, 4, 2, Cdna4, 1>>()),
            "the mainloop needs at least two LDS stages (2 = double buffer)");
  EXPECT_EQ((policy_why<TilePolicy<256, 256, 128, 4, 8, Cdna4>>()),
            "at most 1024 threads per workgroup");
  EXPECT_EQ((policy_why<TilePolicy<256, 256, 128, 2, 2, Cdna4>>()),
            std::string(FP8GEMM_RULE_TILE_ACCUMULATOR_BUDGET));
  // The rule values themselves, for a rule that another shadows in why_not's order.
  using K40 = TilePolicyRules<128, 256, 40, 2, 2, Cdna3>;
  static_assert(!K40::kBlockK16 && !K40::kBlockKAtoms && !K40::kValid);
}

TEST(PolicyRules, PortableMainloopRules) {
  EXPECT_EQ((config_why<TilePolicy<256, 256, 64, 4, 4, Cdna3>, PerTensor>()),
            "the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages");
  EXPECT_EQ((config_why<TilePolicy<16, 16, 32, 1, 1, Cdna3>, PerTensor>()),
            "each thread must copy a whole number of 16-byte vectors of the A and B tiles");
  EXPECT_EQ((config_why<TilePolicy<64, 160, 128, 2, 2, Cdna4>, PerTensor, LayoutB::kKN>()),
            std::string(FP8GEMM_RULE_KN_B_BLOCKS));
  EXPECT_EQ((config_why<TilePolicy<64, 160, 128, 2, 2, Cdna4>, PerTensor, LayoutB::kNK>()),
            "(valid)");
  EXPECT_EQ((config_why<Sm90Default<>, Blockwise<1, 128, 96>>()),
            "K-blocked scales: the scale block along K and BlockK must divide one another");
  EXPECT_EQ((config_why<Cdna3Default<>, Blockwise<1, 128, 96>>()),
            std::string(FP8GEMM_RULE_SCALE_BLOCK_K_DIVIDES));
  EXPECT_EQ((config_why<TilePolicy<64, 64, 128, 2, 2, Cdna4, 2>, Blockwise<1, 128, 64>>()),
            std::string(FP8GEMM_RULE_BLOCKWISE_K_ATOMS));
  EXPECT_EQ((config_why<Sm90Default<>, PerTensor, LayoutB::kNK, PromoteEvery<48>>()),
            "promotion interval (PromoteEvery<K>) must be a multiple of the atom's K");
  EXPECT_EQ((config_why<Cdna4Default<>, Blockwise<1, 128, 128>>()),
            std::string(FP8GEMM_RULE_PARTIAL_ACCUMULATOR_BUDGET));
  // an invalid policy reports its own rule first
  EXPECT_EQ((config_why<TilePolicy<0, 256, 128, 4, 2, Cdna4>, Blockwise<1, 128, 96>>()),
            "tile sizes and wave counts must be positive");
}

struct UnscaledCdna4Atom : Cdna4 {
  static constexpr bool kHardwareMx32 = false;
};
TEST(PolicyRules, SoftwareMx32NeedsAnAtomKThatDivides32) {
  EXPECT_EQ((config_why<TilePolicy<256, 128, 128, 2, 2, UnscaledCdna4Atom>, Mx32>()),
            std::string(FP8GEMM_RULE_MX32_SOFTWARE_ATOM_K));
  EXPECT_EQ((config_why<TilePolicy<256, 128, 128, 2, 2, Cdna4>, Mx32>()), "(valid)");
}

TEST(PolicyRules, WgmmaPolicyRules) {
  EXPECT_EQ((policy_why<WgmmaTilePolicy<128, 256, 3, 3>>()),
            "WgmmaTilePolicy: one consumer warpgroup, or two (cooperative or ping-pong)");
  EXPECT_EQ((policy_why<WgmmaTilePolicy<128, 96, 2, 3>>()),
            std::string(FP8GEMM_RULE_WGMMA_BLOCK_N));
  EXPECT_EQ(
      (policy_why<WgmmaTilePolicy<64, 128, 1, 4, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>>()),
      "WgmmaTilePolicy: the ping-pong schedule alternates two consumer warpgroups");
  EXPECT_EQ((policy_why<WgmmaTilePolicy<64, 128, 2, 4>>()),
            std::string(FP8GEMM_RULE_WGMMA_BLOCK_M));
  EXPECT_EQ((policy_why<WgmmaTilePolicy<0, 128, 2, 4>>()), std::string(FP8GEMM_RULE_WGMMA_BLOCK_M));
  EXPECT_EQ((policy_why<WgmmaTilePolicy<384, 64, 2, 2>>()),
            "WgmmaTilePolicy: BlockM must be at most 256 (one TMA box)");
  EXPECT_EQ((policy_why<WgmmaTilePolicy<128, 128, 2, 1>>()),
            "WgmmaTilePolicy: at least two stages");
  EXPECT_EQ((policy_why<WgmmaTilePolicy<128, 256, 2, 5>>()),
            "WgmmaTilePolicy: the stages do not fit the 227 KiB of shared memory a block may use: "
            "shrink the tile or Stages");
  EXPECT_EQ((policy_why<WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong,
                                        WgmmaMulticast::kA>>()),
            std::string(FP8GEMM_RULE_WGMMA_MULTICAST_PINGPONG));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<128, 16, 1, 8>>()),
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<64, 12, 1, 8>>()),  // 76 x 128 B: no 1-KiB stage
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<64, 200, 1, 4>>()),  // no m64n200 operand list
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE));
  EXPECT_EQ((policy_why<Sm90WgmmaDecode<256>>()), "(valid)");   // 5 stages of 40 KiB
  EXPECT_EQ((policy_why<Sm90WgmmaMidM<104>>()), "(valid)");     // 6 stages of 29 KiB
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<128, 104, 2, 8>>()),  // 8 x 29 KiB > 227 KiB
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SMEM_BUDGET));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<64, 104, 2, 4>>()),  // two consumers, 32 rows each
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<192, 64, 3, 4>>()),  // three consumers
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SHAPE));
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<64, 16, 1, 1>>()),
            "WgmmaSwapABPolicy: at least two stages");
  EXPECT_EQ((policy_why<WgmmaSwapABPolicy<64, 16, 1, 40>>()),
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_SMEM_BUDGET));
}

struct HintedMulticast : Sm90WgmmaDefaultMulticastA<> {
  static constexpr bool kL2StreamHints = true;
};
TEST(PolicyRules, WgmmaMainloopRules) {
  EXPECT_EQ((config_why<Sm90WgmmaDefault<>, PerTensor, LayoutB::kKN>()),
            std::string(FP8GEMM_RULE_WGMMA_KN_B));
  EXPECT_EQ((config_why<Sm90WgmmaDefault<>, Mx32>()), std::string(FP8GEMM_RULE_WGMMA_MX32));
  EXPECT_EQ((config_why<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, PromoteEvery<256>>()),
            "WGMMA policies promote once per 128-K block (PromoteEvery<128>, the default) or never "
            "(FastAccumulation)");
  EXPECT_EQ((config_why<WgmmaTilePolicy<256, 192, 2, 2>, PerTensor>()),
            std::string(FP8GEMM_RULE_WGMMA_ACCUMULATOR_BUDGET));
  EXPECT_EQ(
      (config_why<WgmmaTilePolicy<256, 192, 2, 2>, PerTensor, LayoutB::kNK, FastAccumulation>()),
      "(valid)");
  EXPECT_EQ((config_why<Sm90WgmmaDefault<>, Blockwise<1, 128, 64>>()),
            std::string(FP8GEMM_RULE_WGMMA_BLOCKWISE_K));
  EXPECT_EQ((config_why<Sm90WgmmaDefault<>, Blockwise<1, 96, 128>>()),
            std::string(FP8GEMM_RULE_WGMMA_BLOCKWISE_N));
  EXPECT_EQ((config_why<Sm90WgmmaDecode<128>, Blockwise<1, 128, 128>>()),
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_BLOCKWISE));
  EXPECT_EQ((config_why<Sm90WgmmaDecode<16>, Blockwise<1, 32, 128>>()),
            std::string(FP8GEMM_RULE_WGMMA_SWAPAB_BLOCKWISE));
  EXPECT_EQ((config_why<Sm90WgmmaDecode<64>, Blockwise<1, 128, 128>>()), "(valid)");
  EXPECT_EQ((config_why<HintedMulticast, PerTensor>()),
            std::string(FP8GEMM_RULE_WGMMA_L2_STREAM_HINTS));
  // multicast halves: only the shared operand's rows are halved (B's 128 with kB; A's 104
  // columns of the swapped tile with kA: 52 rows, no whole swizzle atoms)
  EXPECT_EQ((config_why<Sm90WgmmaMidMMulticastB<104>, PerTensor>()), "(valid)");
  EXPECT_EQ((config_why<WgmmaSwapABPolicy<128, 104, 2, 6, e4m3fn, e4m3fn, WgmmaMulticast::kA>,
                        PerTensor>()),
            std::string(FP8GEMM_RULE_WGMMA_MULTICAST_HALVES));
  EXPECT_EQ((config_why<WgmmaSwapABPolicy<128, 96, 2, 6, e4m3fn, e4m3fn, WgmmaMulticast::kA>,
                        PerTensor>()),
            "(valid)");
  // an invalid policy: its own rule, no compile error
  EXPECT_EQ(
      (config_why<WgmmaTilePolicy<128, 256, 2, 5>, PerTensor, LayoutB::kNK, FastAccumulation>()),
      std::string(FP8GEMM_RULE_WGMMA_SMEM_BUDGET));
  EXPECT_EQ((config_why<WgmmaTilePolicy<128, 96, 2, 3>, Blockwise<1, 128, 128>>()),
            std::string(FP8GEMM_RULE_WGMMA_BLOCK_N));
}

}  // namespace
}  // namespace fp8gemm
