// SPDX-License-Identifier: MIT
/// Unit tests for float_to_fp8_stochastic: the result is always one of the two neighbours of x,
/// the random bits are used MSB-first as a 32-bit fraction, and the rounding is unbiased.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fp8_formats.hpp"
#include "fp8_sweep.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm {
namespace {

template <class T>
class Stochastic : public ::testing::Test {};

using test::FormatName;
using test::Fp8Formats;
TYPED_TEST_SUITE(Stochastic, Fp8Formats, FormatName);

/// The sorted non-negative finite values of T, from the decoder (checked by fp8_decode_test).
template <class T>
std::vector<double> sorted_values() {
  std::vector<double> v;
  for (int c = 0; c < 256; ++c) {
    float const f = fp8_to_float(T::from_bits(static_cast<std::uint8_t>(c)));
    if (std::isfinite(f) && f >= 0.0f) v.push_back(f);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// The neighbours lo <= |x| <= hi of |x| <= max in T (lo == hi when |x| is representable).
struct Neighbours {
  double lo, hi;
};
Neighbours neighbours(std::vector<double> const& values, double a) {
  auto const it = std::lower_bound(values.begin(), values.end(), a);
  if (*it == a) return {a, a};
  return {*(it - 1), *it};
}

TYPED_TEST(Stochastic, AlwaysOneOfTheTwoNeighbours) {
  using Traits = FormatTraits<TypeParam>;
  std::vector<double> const values = sorted_values<TypeParam>();
  std::mt19937 rng(1234);
  long checked = 0;
  for (float x : test::fp8_sweep_inputs(/*dense_stride=*/16)) {
    double const a = std::fabs(static_cast<double>(x));
    if (!(a <= Traits::kMaxFinite)) continue;  // NaN and overflow: covered below
    Neighbours const n = neighbours(values, a);
    for (int r = 0; r < 2; ++r) {
      std::uint32_t const bits = r == 0 ? rng() : 0xFFFFFFFFu;
      for (Saturation s : {Saturation::kSaturate, Saturation::kNonSaturating}) {
        float const got = fp8_to_float(float_to_fp8_stochastic<TypeParam>(x, bits, s));
        double const g = std::fabs(static_cast<double>(got));
        ASSERT_TRUE(g == n.lo || g == n.hi) << x << " -> " << got << " bits " << bits;
        ASSERT_TRUE(g == 0.0 || std::signbit(got) == std::signbit(x)) << x;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200000);
  // Representable values never move; NaN stays NaN; beyond max saturates (or overflows).
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(1.0f, 0xFFFFFFFFu).bits,
            float_to_fp8<TypeParam>(1.0f).bits);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(std::nanf(""), 0xFFFFFFFFu).bits, Traits::kNanBits);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(1e30f, 0u).bits, Traits::kMaxFiniteBits);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(1e30f, 0u, Saturation::kNonSaturating).bits,
            float_to_fp8<TypeParam>(1e30f, Saturation::kNonSaturating).bits);
}

TYPED_TEST(Stochastic, RandomBitsAreAFractionReadMsbFirst) {
  using Traits = FormatTraits<TypeParam>;
  float const ulp = Traits::kMinSubnormal;  // subnormal range: ulp = min subnormal
  // x = 2^-32 ulp above 0: rounds up only for random_bits = 2^32 - 1 (all 32 bits count).
  float const tiny = std::ldexp(ulp, -32);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(tiny, 0xFFFFFFFFu).bits, 0x01);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(tiny, 0xFFFFFFFEu).bits, 0x00);
  // x = lo + 0.25 ulp (lo = 1.0): rounds up iff random_bits >= 0.75 * 2^32.
  float const x = 1.0f + 0.25f * std::ldexp(1.0f, -Traits::kMantissaBits);
  std::uint8_t const lo = float_to_fp8<TypeParam>(1.0f).bits;
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(x, 0xBFFFFFFFu).bits, lo);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(x, 0xC0000000u).bits, lo + 1);
  EXPECT_EQ(float_to_fp8_stochastic<TypeParam>(-x, 0xC0000000u).bits, (lo + 1) | 0x80);
}

/// Unbiasedness. For each test point x (|x| <= max, not representable) draw N = 200,000 uniform
/// 32-bit random words (mt19937, fixed seed: reproducible), decode, and compare the sample mean
/// with x. Each sample is lo or hi with P(hi) = p = (|x| - lo) / (hi - lo), so its variance is
/// p (1 - p) (hi - lo)^2 and the mean's standard error is sqrt(that / N). We require
/// |mean - x| / se < 6. For a correct implementation (bias <= 2^-32 ulp, far below se) the
/// two-sided normal tail at 6 sigma is 2e-9 per point; over the 4 x 48 points below the chance
/// of any false failure is < 4e-7 < 1e-6. A rounding-to-nearest or a 31-bit comparison shows up
/// as |z| in the hundreds.
TYPED_TEST(Stochastic, MeanIsUnbiased) {
  using Traits = FormatTraits<TypeParam>;
  std::vector<double> const values = sorted_values<TypeParam>();
  constexpr int kSamples = 200000;
  std::mt19937 pick(99);
  std::mt19937 rng(0xD1CE);
  std::vector<float> points;
  // 16 points at fixed fractions of an ulp (normal and subnormal ranges), 32 log-uniform random.
  for (float frac : {0.001f, 0.25f, 0.5f, 0.75f, 0.999f, 1.0f / 3.0f, 0.1f, 0.9f}) {
    points.push_back(1.0f + frac * std::ldexp(1.0f, -Traits::kMantissaBits));
    points.push_back(-(Traits::kMinSubnormal * (2.0f + frac)));
  }
  int const lo_exp = std::ilogb(Traits::kMinSubnormal), hi_exp = Traits::kMaxExponent;
  while (points.size() < 48) {
    float const x = std::ldexp(1.0f + std::uniform_real_distribution<float>(0, 1)(pick),
                               std::uniform_int_distribution<int>(lo_exp, hi_exp - 1)(pick));
    if (neighbours(values, x).lo != x) points.push_back((pick() & 1) ? x : -x);
  }
  for (float x : points) {
    double const a = std::fabs(static_cast<double>(x));
    Neighbours const n = neighbours(values, a);
    ASSERT_LT(n.lo, n.hi) << x;
    double sum = 0.0;
    for (int i = 0; i < kSamples; ++i) {
      sum += std::fabs(fp8_to_float(float_to_fp8_stochastic<TypeParam>(x, rng())));
    }
    double const mean = sum / kSamples;
    double const p = (a - n.lo) / (n.hi - n.lo);
    double const se = std::sqrt(p * (1.0 - p) / kSamples) * (n.hi - n.lo);
    double const z = (mean - a) / se;
    EXPECT_LT(std::fabs(z), 6.0) << Traits::kName << " x=" << x << " mean=" << mean << " p=" << p
                                 << " se=" << se;
  }
}

}  // namespace
}  // namespace fp8gemm
