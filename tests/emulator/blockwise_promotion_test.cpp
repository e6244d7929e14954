// SPDX-License-Identifier: MIT
// The CDNA Blockwise promotion on the emulator (BufferLdsPingPongMainloop, gfx950 Cdna4KBlocked
// and gfx942 Cdna3Default, Blockwise<1, 128, 128>): acc = fma(partial, s_a·s_b, acc) while every
// product s_a·s_b of a wave's rows is a normal FP32 number (the wave's vote, per K tile), and
// acc += (partial·s_a)·s_b for a tile where one is not. Both against FP64 within the derived
// bound (tests/common/tolerance.hpp: per K block up to three rounded operations, and the folded
// form has two: the product and the fma). The second case puts products of ~2^-142 (subnormal,
// ~8 significant bits) in one wave's tiles from the third K block on, zero data in its first two
// (so those tiles carry the result), and checks the folded form would have missed the bound there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

using Gfx950Config = GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK,
                                Epilogue<float, Identity>>;
using Gfx942Config = GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Blockwise<1, 128, 128>,
                                LayoutB::kNK, Epilogue<float, Identity>>;
static_assert(Gfx950Config::Mainloop::kFoldScales && Gfx942Config::Mainloop::kFoldScales,
              "both run the folded promotion (one B scale block spans the wave tile)");

constexpr int kScaleBlockK = 128;
// The region whose products leave FP32's normal range: A rows [64, 128) (the rows of one wave of
// the first block tile, on both policies) x B columns [0, 128) (one B scale block).
constexpr int kRowBegin = 64, kRowEnd = 128, kColEnd = 128;
// Each of the two scales times 2^-64 there: quantized scales are ~2^-7 (amax ~3 over 448), so the
// products are ~2^-142, while each scale, and partial·s_a, stay normal.
constexpr int kScaleExponent = -64;

// M, N past a tile, K with a partial last tile (the tail's promotion): 4 full K blocks + 40.
GemmCase region_case(std::uint64_t seed) {
  GemmCase c{293, 200, 4 * kScaleBlockK + 40, seed};
  c.bias = false;  // the region's outputs are ~2^-126: a bias would hide them
  return c;
}

/// From K block `first` on, the region's products become ~2^-142; before it, the region's rows
/// of A are zero (so the later blocks carry their outputs). Then the reference is derived again.
template <class Config>
void make_region_subnormal(GemmProblem<Config>& p, int first) {
  using ElementA = typename Config::ElementA;
  int const blocks = static_cast<int>((p.cs.k + kScaleBlockK - 1) / kScaleBlockK);
  for (int m = kRowBegin; m < kRowEnd; ++m) {
    for (int k = 0; k < first * kScaleBlockK; ++k) p.a_q[m * p.lda + k] = ElementA::from_bits(0);
    for (int b = first; b < blocks; ++b)
      p.sa_f[m * blocks + b] = std::ldexp(p.sa_f[m * blocks + b], kScaleExponent);
  }
  for (int b = first; b < blocks; ++b)  // B scale block 0: columns [0, 128)
    p.sb_f[b] = std::ldexp(p.sb_f[b], kScaleExponent);
  p.derive_reference();
}

/// How many of the region's outputs the folded form alone, acc = fma(partial, s_a·s_b, acc) with
/// the product rounded to FP32, puts outside the bound (partial: the block's exact sum, rounded).
template <class Config>
int folded_outside_bound(GemmProblem<Config> const& p) {
  int const blocks = static_cast<int>((p.cs.k + kScaleBlockK - 1) / kScaleBlockK);
  int outside = 0;
  for (int m = kRowBegin; m < kRowEnd; ++m) {
    for (int n = 0; n < kColEnd && n < p.cs.n; ++n) {
      float acc = 0.0f;
      for (int b = 0; b < blocks; ++b) {
        double sum = 0.0;
        for (int k = b * kScaleBlockK; k < (b + 1) * kScaleBlockK && k < p.cs.k; ++k)
          sum += double(p.a_q[m * p.lda + k].to_float()) * double(p.b_q[n * p.ldb + k].to_float());
        float const product = p.sa_f[m * blocks + b] * p.sb_f[(n / kColEnd) * blocks + b];
        acc = std::fma(static_cast<float>(sum), product, acc);
      }
      std::size_t const i = static_cast<std::size_t>(m * p.cs.n + n);
      outside += std::fabs(double(acc) - p.epi.rounded[i]) > p.bound[i];
    }
  }
  return outside;
}

template <class Config>
void expect_fallback_keeps_the_bound(std::uint64_t seed, int first) {
  GemmProblem<Config> p(region_case(seed));
  make_region_subnormal(p, first);
  // the region's products are not normal FP32 numbers: the tiles there must take the fallback
  int const blocks = static_cast<int>((p.cs.k + kScaleBlockK - 1) / kScaleBlockK);
  float const product = p.sa_f[kRowBegin * blocks + first] * p.sb_f[first];
  ASSERT_FALSE(std::isnormal(product)) << product;
  EXPECT_GT(folded_outside_bound(p), 0) << "the case must tell the two forms apart";
  std::string report;
  EXPECT_TRUE(run_on_host(p, &report)) << report;
}

TEST(BlockwisePromotion, FoldedWhenEveryProductIsNormal) {
  for (GemmCase c : {region_case(710), GemmCase{256, 256, 1024, 711, Distribution::kRowRanges}}) {
    EXPECT_TRUE(run_on_host(GemmProblem<Gfx950Config>(c))) << describe(c);
    EXPECT_TRUE(run_on_host(GemmProblem<Gfx942Config>(c))) << describe(c);
  }
}

// From the third K block on: the wave leaves the folded loop there and finishes its range, the
// partial last tile included, in the loop that decides tile by tile.
TEST(BlockwisePromotion, Gfx950FallbackWhenAProductIsSubnormal) {
  expect_fallback_keeps_the_bound<Gfx950Config>(712, 2);
}
TEST(BlockwisePromotion, Gfx942FallbackWhenAProductIsSubnormal) {
  expect_fallback_keeps_the_bound<Gfx942Config>(713, 2);
}
// From the first K block on: the wave never enters the folded loop.
TEST(BlockwisePromotion, FallbackFromTheFirstTile) {
  expect_fallback_keeps_the_bound<Gfx950Config>(714, 0);
  expect_fallback_keeps_the_bound<Gfx942Config>(715, 0);
}

}  // namespace
}  // namespace fp8gemm::test
