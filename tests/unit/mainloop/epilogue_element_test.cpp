// SPDX-License-Identifier: MIT
// The epilogue's element pieces on the host: Epilogue::write_pair (the register-store path's one
// access) writes exactly Epilogue::pair_bits (also TmaStoreEpilogue's st.shared) and nothing
// around it, y0 first and each the output's conversion, for every output type; and GELU-tanh
// evaluated as x / (1 + 2^t), t = -2u log2(e), against 0.5 x (1 + tanh u) in FP64, including the
// negative x where 1 + tanh u cancels in float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

template <class ElementC>
void check_pair_bits(float output_scale) {
  using E = Epilogue<ElementC, Identity>;
  typename E::Params p;
  p.output_scale = output_scale;
  static_assert(sizeof(typename E::PairBits) == 2 * sizeof(ElementC));
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 300.0f);  // fp8 outputs also saturate
  for (int i = 0; i < 2000; ++i) {
    float const y0 = dist(rng), y1 = i % 7 == 0 ? -0.0f : dist(rng);
    alignas(8) unsigned char written[2 * sizeof(ElementC)];
    std::memset(written, 0xA5, sizeof written);  // poison
    E::write_pair(written, p, y0, y1);
    auto const bits = E::pair_bits(p, y0, y1);
    unsigned char packed[sizeof bits];
    std::memcpy(packed, &bits, sizeof bits);
    ASSERT_EQ(std::memcmp(written, packed, sizeof bits), 0) << "y0 = " << y0 << ", y1 = " << y1;
  }
  // y0 goes to the lower address: C[m][n] before C[m][n + 1]
  auto const bits = E::pair_bits(p, 1.0f, 0.0f);
  unsigned char packed[sizeof bits];
  std::memcpy(packed, &bits, sizeof bits);
  ElementC const one = convert_output<ElementC>(1.0f, output_scale);
  ElementC const zero = convert_output<ElementC>(0.0f, output_scale);
  EXPECT_EQ(std::memcmp(packed, &one, sizeof one), 0);
  EXPECT_EQ(std::memcmp(packed + sizeof(ElementC), &zero, sizeof zero), 0);
}

TEST(EpiloguePairBits, SameBytesAsWritePair) {
  check_pair_bits<bf16>(std::nanf(""));
  check_pair_bits<fp16>(std::nanf(""));
  check_pair_bits<float>(std::nanf(""));
  check_pair_bits<e4m3fn>(0.5f);
  check_pair_bits<e5m2>(2.0f);
  check_pair_bits<e4m3fnuz>(0.25f);
}

// 0.5 x (1 + tanh u) = x / (1 + e^(-2u)) in FP64; the first form would cancel in double too
// (at x = -7.2 it keeps one digit).
double gelu_tanh_fp64(double x) {
  double const u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

// The host form (exp2 and a division; device code uses ex2.approx.ftz and rcp.approx.ftz on
// NVIDIA, swept over every input by the first-light GPU test, and exp2f / __fdividef on AMD). Two
// measures. Relative to |y| over x in [-8, 12] (y stays a normal float there): within the
// conditioning of the float argument, 3 |2u| + 4 ulps (y ~ x 2^(-t) for negative x, so t's
// relative error, up to ~3 ulps from its three roundings and the constants', is amplified
// ln 2 · |t| = |2u| times: ~150 ulps allowed at x = -8), where the float evaluation
// of 0.5 x (1 + tanhf(u)) loses most of its digits below x ~ -4 (1 + tanh u is a difference of
// nearly equal numbers). And the tests' bound for the activation (tolerance.hpp:
// activation_eval_ulps = 4 units of 2^-24 (|y| + |x|)) over [-12, 12], where y underflows at the
// left end.
TEST(EpilogueGelu, TanhFormAsLogisticIsAccurateForNegativeX) {
  double worst_new = 0.0, worst_old = 0.0, worst_bound_units = 0.0;
  for (int i = -12000; i <= 12000; ++i) {
    float const x = static_cast<float>(i) / 1000.0f;
    double const want = gelu_tanh_fp64(x);
    double const got = GeluTanh::apply(x);
    worst_bound_units =
        std::max(worst_bound_units,
                 std::fabs(got - want) / (std::ldexp(1.0, -24) * (std::fabs(want) + std::fabs(x))));
    if (x < -8.0f || want == 0.0) continue;
    double const ulp = std::ldexp(1.0, std::ilogb(std::fabs(want)) - 23);
    float const u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    double const allowed = 6.0 * std::fabs(u) + 4.0;  // ulps of |y|
    double const old_form = 0.5f * x * (1.0f + std::tanh(u));
    worst_new = std::max(worst_new, std::fabs(got - want) / ulp / allowed);
    worst_old = std::max(worst_old, std::fabs(old_form - want) / ulp / allowed);
  }
  EXPECT_LE(worst_new, 1.0);     // within 3 |2u| + 4 ulps of |y| everywhere
  EXPECT_GT(worst_old, 1000.0);  // the cancellation the logistic form avoids
  EXPECT_LE(worst_bound_units, 2.0);
  // limits: large |x|, and the special values
  EXPECT_EQ(GeluTanh::apply(100.0f), 100.0f);
  EXPECT_EQ(GeluTanh::apply(-100.0f), 0.0f);
  EXPECT_EQ(GeluTanh::apply(0.0f), 0.0f);
  EXPECT_EQ(GeluTanh::apply(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(GeluTanh::apply(NAN)));
}

}  // namespace
}  // namespace fp8gemm
