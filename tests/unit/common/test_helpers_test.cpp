// SPDX-License-Identifier: MIT
/// Tests of the shared test helpers (tests/common): the FP64 reference GEMM against long double,
/// dequantization, GELU values, the tolerance bound (also against a simulated FP32 GEMM),
/// generators, metrics and poisoning.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/generators.hpp"
#include "common/metrics.hpp"
#include "common/poison.hpp"
#include "common/reference_gemm.hpp"
#include "common/tolerance.hpp"
#include "fp8gemm/quant/quantize_host.hpp"

namespace fp8gemm::test {
namespace {

// ---- reference GEMM ---------------------------------------------------------------------------

TEST(ReferenceGemm, MatchesNaiveLongDouble) {
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{1, 1, 1}, {5, 7, 33}, {3, 4, 129}}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(m * 100 + n * 10 + k));
    std::normal_distribution<double> normal;
    std::vector<double> a(m * k), b(k * n);
    for (double& v : a) v = normal(rng);
    for (double& v : b) v = normal(rng) * 1e3;
    GemmReference const ref = reference_gemm(a, b, m, n, k);
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < n; ++c) {
        long double sum = 0, abs_sum = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) {
          sum += static_cast<long double>(a[r * k + kk]) * b[kk * n + c];
          abs_sum += std::fabs(static_cast<long double>(a[r * k + kk]) * b[kk * n + c]);
        }
        EXPECT_NEAR(ref.c[r * n + c], static_cast<double>(sum),
                    1e-14 * static_cast<double>(abs_sum));
        EXPECT_NEAR(ref.abs_c[r * n + c], static_cast<double>(abs_sum),
                    1e-14 * static_cast<double>(abs_sum));
      }
  }
}

TEST(ReferenceGemm, DequantizeMatchesScalesAndLayouts) {
  constexpr std::int64_t kN = 9, kK = 70;
  std::vector<float> x = random_matrix(kN, kK, kK, Distribution::kOutliers, 4);
  std::vector<float> xt(kK * kN);
  for (std::int64_t r = 0; r < kN; ++r)
    for (std::int64_t kk = 0; kk < kK; ++kk) xt[kk * kN + r] = x[r * kK + kk];
  std::vector<e4m3fn> q_nk(kN * kK), q_kn(kK * kN), q_a(kN * kK);
  std::vector<e8m0> s_nk(kN * 3), s_kn(kN * 3), s_a(kN * 3);
  ASSERT_TRUE((quantize_b_host<e4m3fn, Mx32>({x.data(), kN, kK, kK, LayoutB::kNK, q_nk.data(), kK,
                                              nullptr, s_nk.data(), kN * 3}))
                  .ok());
  ASSERT_TRUE((quantize_b_host<e4m3fn, Mx32>({xt.data(), kN, kK, kN, LayoutB::kKN, q_kn.data(), kN,
                                              nullptr, s_kn.data(), kN * 3}))
                  .ok());
  ASSERT_TRUE((quantize_a_host<e4m3fn, Mx32>(
                   {x.data(), kN, kK, kK, q_a.data(), kK, nullptr, s_a.data(), kN * 3}))
                  .ok());
  std::vector<double> const b1 =
      dequantize_b<e4m3fn, Mx32>(q_nk.data(), kN, kK, kK, LayoutB::kNK, nullptr, s_nk.data());
  std::vector<double> const b2 =
      dequantize_b<e4m3fn, Mx32>(q_kn.data(), kN, kK, kN, LayoutB::kKN, nullptr, s_kn.data());
  std::vector<double> const a =
      dequantize_a<e4m3fn, Mx32>(q_a.data(), kN, kK, kK, nullptr, s_a.data());
  EXPECT_EQ(b1, b2);
  for (std::int64_t r = 0; r < kN; ++r)
    for (std::int64_t kk = 0; kk < kK; ++kk) {
      double const v =
          fp8_to_float(q_a[r * kK + kk]) * std::ldexp(1.0, s_a[r * 3 + kk / 32].exponent());
      ASSERT_EQ(a[r * kK + kk], v);
      ASSERT_EQ(b1[kk * kN + r], v);  // B[k][n] = the same matrix transposed
      // Mx32 e4m3fn: |deq − x| ≤ 2^-4 · |x| relative half-ulp, or saturation / subnormal spacing
      double const s = std::ldexp(1.0, s_a[r * 3 + kk / 32].exponent());
      ASSERT_LE(std::fabs(v - x[r * kK + kk]),
                std::fmax(0x1p-4 * std::fabs(x[r * kK + kk]), 0x1p-10 * s) +
                    std::fmax(0.0, std::fabs(x[r * kK + kk]) - 448.0 * s));
    }
  // float scales: PerChannel
  std::vector<e5m2> q(kN * kK);
  std::vector<float> sc(kN);
  ASSERT_TRUE((quantize_a_host<e5m2, PerChannel>(
                   {x.data(), kN, kK, kK, q.data(), kK, sc.data(), nullptr, kN}))
                  .ok());
  std::vector<double> const ac = dequantize_a<e5m2, PerChannel>(q.data(), kN, kK, kK, sc.data());
  EXPECT_EQ(ac[5 * kK + 3], double(fp8_to_float(q[5 * kK + 3])) * sc[5]);
}

// ---- epilogue ---------------------------------------------------------------------------------

TEST(ReferenceEpilogue, GeluKnownValues) {
  // 0.5·x·(1 + erf(x/√2)) = x·Φ(x): Φ(1) = 0.841344746068542948...
  EXPECT_NEAR(gelu_erf(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(gelu_erf(-1.0), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(gelu_erf(2.0), 1.9544997361036416, 1e-15);
  EXPECT_NEAR(gelu_erf(-3.0), -0.00404969409489031, 1e-16);
  EXPECT_NEAR(gelu_tanh(1.0), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(gelu_tanh(-1.0), -0.15880800939172324, 1e-15);
  EXPECT_NEAR(gelu_tanh(2.0), 1.954597694087775, 1e-15);
  EXPECT_NEAR(gelu_tanh(-3.0), -0.0036373920817729943, 1e-16);
  EXPECT_EQ(gelu_tanh(0.0), 0.0);
  EXPECT_EQ(apply_activation(Activation::kIdentity, -2.5), -2.5);
  // the Lipschitz factor used by the tolerance: |gelu'| ≤ 1.13 (max 1.1290 near x ≈ 1.4-1.5)
  double max_slope = 0.0;
  for (double x = -10.0; x <= 10.0; x += 1e-3) {
    double const h = 1e-6;
    max_slope = std::fmax(max_slope, std::fabs(gelu_tanh(x + h) - gelu_tanh(x - h)) / (2 * h));
    max_slope = std::fmax(max_slope, std::fabs(gelu_erf(x + h) - gelu_erf(x - h)) / (2 * h));
  }
  EXPECT_GT(max_slope, 1.128);
  EXPECT_LE(max_slope, kGeluLipschitz);
}

TEST(ReferenceEpilogue, BiasActivationOutputRoundingAndAmax) {
  GemmReference c{1, 3, 1, {1.0, -2.0, 300.0}, {1.0, 2.0, 300.0}};
  double const bias[3] = {0.5, 0.0, 200.0};
  EpilogueReference const e =
      reference_epilogue(c, bias, Activation::kGeluErf, OutputType::kE4m3fn, 2.0);
  EXPECT_EQ(e.z[0], 1.5);
  EXPECT_EQ(e.y[1], gelu_erf(-2.0));
  EXPECT_NEAR(e.amax, 500.0, 1e-9);
  // 500 / 2 = 250 → e4m3fn 256 (spacing 16 in [128, 256): 250 is nearer 256 than 240) → 512
  EXPECT_EQ(e.rounded[2], 512.0);
  EXPECT_EQ(round_to_output(OutputType::kE4m3fn, 1000.0, 1.0), 448.0);  // saturating
  EXPECT_EQ(round_to_output(OutputType::kE4m3fnuz, 1000.0, 1.0), 240.0);
  EXPECT_EQ(round_to_output(OutputType::kBf16, 1.0 + 0x1p-9, 1.0), 1.0);  // tie → even
  EXPECT_EQ(round_to_output(OutputType::kBf16, 1.0 + 3 * 0x1p-9, 1.0), 1.0 + 0x1p-7);
  EXPECT_EQ(round_to_output(OutputType::kF16, 1.0 + 0x1p-12, 1.0), 1.0);
  EXPECT_EQ(round_to_output(OutputType::kF32, 1.0 + 0x1p-30, 1.0), 1.0);
  EXPECT_EQ(round_to_output(OutputType::kE5m2, 3.3, 4.0), 3.5);  // 0.825 → 0.875 (spacing 0.125)
}

// ---- tolerance --------------------------------------------------------------------------------

TEST(Tolerance, GammaAndOutputRounding) {
  EXPECT_DOUBLE_EQ(gamma_n(1), 0x1p-24 / (1 - 0x1p-24));
  EXPECT_DOUBLE_EQ(gamma_n(1024, 0x1p-13), 1024 * 0x1p-13 / (1 - 1024 * 0x1p-13));
  EXPECT_TRUE(std::isinf(gamma_n(1 << 24)));
  EXPECT_EQ(output_rounding_bound(OutputType::kBf16, 1.0), 0x1p-8);
  EXPECT_EQ(output_rounding_bound(OutputType::kBf16, 1.99), 0x1p-8);
  EXPECT_EQ(output_rounding_bound(OutputType::kF16, 1.0), 0x1p-11);
  EXPECT_EQ(output_rounding_bound(OutputType::kF16, 1e-7), 0x1p-25);  // f16 subnormal spacing 2^-24
  EXPECT_TRUE(std::isinf(output_rounding_bound(OutputType::kF16, 70000.0)));
  EXPECT_EQ(output_rounding_bound(OutputType::kF32, 3.0), 0x1p-23);
  double const fp8_rel = 0x1p-24;  // the float division y / s_out
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE4m3fn, 1.0), 0x1p-4 + fp8_rel);
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE4m3fn, 0.001), 0x1p-10 + 0.001 * fp8_rel);
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE4m3fnuz, 0.001), 0x1p-11 + 0.001 * fp8_rel);
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE5m2, 1.0), 0x1p-3 + fp8_rel);
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE5m2fnuz, 1e-6), 0x1p-18 + 1e-6 * fp8_rel);
  // saturation: 500 → 448 costs 52 on top of half an ulp at 448 (16)
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE4m3fn, 500.0),
                   16.0 + 52.0 + 500.0 * fp8_rel);
  // s_out scales everything
  EXPECT_DOUBLE_EQ(output_rounding_bound(OutputType::kE4m3fn, 1000.0, 4.0),
                   4.0 * (8.0 + 250.0 * fp8_rel));
  ToleranceParams p;
  p.k = 100;
  p.extra_ops = 3;
  EXPECT_DOUBLE_EQ(
      element_bound(p, 10.0, 0.0, 0.0),
      gamma_n(103) * 10.0 + 0.5 * ulp_at(output_format(OutputType::kF32), gamma_n(103) * 10.0));
  p.activation = Activation::kGeluTanh;
  EXPECT_GT(element_bound(p, 10.0, 1.0, gelu_tanh(1.0)), kGeluLipschitz * gamma_n(103) * 10.0);
}

/// An FP32 GEMM as a kernel does it: exact fp8 products summed in float (k order), then
/// acc · s_a · s_b, + bias, act in float, rounded to the output. Optionally a narrower
/// accumulator: each partial sum rounded to `acc_bits` mantissa bits (truncation toward zero).
double simulated_output(std::vector<e4m3fn> const& qa, std::vector<e4m3fn> const& qb, float sa,
                        float sb, std::int64_t r, std::int64_t c, std::int64_t k, std::int64_t n,
                        float bias, Activation act, OutputType out, float out_scale, int acc_bits) {
  float acc = 0.0f;
  for (std::int64_t kk = 0; kk < k; ++kk) {
    acc += fp8_to_float(qa[r * k + kk]) * fp8_to_float(qb[c * k + kk]);
    if (acc_bits < 23) {
      int e;
      float const m = std::frexp(acc, &e);
      acc = std::ldexp(std::trunc(std::ldexp(m, acc_bits + 1)), e - acc_bits - 1);
    }
  }
  (void)n;
  float z = acc * sa * sb + bias;
  float y = act == Activation::kIdentity ? z
            : act == Activation::kGeluTanh
                ? static_cast<float>(
                      0.5f * z * (1.0f + std::tanh(0.7978845608f * (z + 0.044715f * z * z * z))))
                : static_cast<float>(0.5f * z * (1.0f + std::erf(z * 0.70710678f)));
  return round_to_output(out, y, out_scale);
}

TEST(Tolerance, BoundsASimulatedFp32GemmAndCatchesAnError) {
  constexpr std::int64_t kM = 8, kN = 16, kK = 512;
  std::vector<float> xa = random_matrix(kM, kK, kK, Distribution::kNormal, 1);
  std::vector<float> xb = random_matrix(kN, kK, kK, Distribution::kOutliers, 2);
  std::vector<e4m3fn> qa(kM * kK), qb(kN * kK);
  float sa = 0, sb = 0;
  ASSERT_TRUE(
      (quantize_a_host<e4m3fn, PerTensor>({xa.data(), kM, kK, kK, qa.data(), kK, &sa, nullptr, 1}))
          .ok());
  ASSERT_TRUE((quantize_b_host<e4m3fn, PerTensor>(
                   {xb.data(), kN, kK, kK, LayoutB::kNK, qb.data(), kK, &sb, nullptr, 1}))
                  .ok());
  auto const a = dequantize_a<e4m3fn, PerTensor>(qa.data(), kM, kK, kK, &sa);
  auto const b = dequantize_b<e4m3fn, PerTensor>(qb.data(), kN, kK, kK, LayoutB::kNK, &sb);
  GemmReference const c = reference_gemm(a, b, kM, kN, kK);
  std::vector<double> const bias = random_bias(kN, 10.0, 3);
  for (Activation act : {Activation::kIdentity, Activation::kGeluTanh, Activation::kGeluErf}) {
    for (OutputType out : {OutputType::kF32, OutputType::kBf16, OutputType::kF16,
                           OutputType::kE4m3fn, OutputType::kE5m2fnuz}) {
      for (int acc_bits : {23, 13}) {
        double const out_scale = is_fp8_output(out) ? 0.5 : 1.0;
        EpilogueReference const e = reference_epilogue(c, bias.data(), act, out, out_scale);
        ToleranceParams p;
        p.k = kK;
        p.extra_ops = 3;                               // · s_a, · s_b, + bias
        p.unit_roundoff = std::ldexp(1.0, -acc_bits);  // truncation: u = 2^-bits
        p.activation = act;
        p.output = out;
        p.out_scale = out_scale;
        std::vector<double> const bound = element_bounds(p, c, e, bias.data());
        std::vector<double> got(kM * kN);
        for (std::int64_t r = 0; r < kM; ++r)
          for (std::int64_t col = 0; col < kN; ++col)
            got[r * kN + col] =
                simulated_output(qa, qb, sa, sb, r, col, kK, kN, static_cast<float>(bias[col]), act,
                                 out, static_cast<float>(out_scale), acc_bits);
        EXPECT_TRUE(all_within_bound(got, e.y, bound, kM, kN))
            << activation_name(act) << " " << output_type_name(out) << " acc bits " << acc_bits;
        if (acc_bits == 13 && out == OutputType::kF32) {
          // the bound is not vacuous: a 13-bit truncating accumulator uses a visible part of it
          double ratio = 0.0;
          for (std::size_t i = 0; i < got.size(); ++i)
            ratio = std::fmax(ratio, std::fabs(got[i] - e.y[i]) / bound[i]);
          EXPECT_GT(ratio, 0.05) << activation_name(act);
        }
        // against the rounded reference (compare_to_rounded adds the reference's half ulp)
        ToleranceParams pr = p;
        pr.compare_to_rounded = true;
        EXPECT_TRUE(all_within_bound(got, e.rounded, element_bounds(pr, c, e, bias.data()), kM, kN))
            << activation_name(act) << " " << output_type_name(out) << " vs rounded";
        // an error of 2 bounds at (m 3, n 5) is caught and named
        got[3 * kN + 5] = e.y[3 * kN + 5] + 2.0 * bound[3 * kN + 5];
        ::testing::AssertionResult const r = all_within_bound(got, e.y, bound, kM, kN);
        EXPECT_FALSE(r);
        EXPECT_NE(std::string(r.message()).find("(m 3, n 5)"), std::string::npos) << r.message();
      }
    }
  }
}

// ---- generators -------------------------------------------------------------------------------

TEST(Generators, DeterministicPaddedNeverAllZero) {
  for (Distribution d : kAllDistributions) {
    auto const x1 = random_matrix(30, 50, 53, d, 9);
    auto const x2 = random_matrix(30, 50, 53, d, 9);
    auto const x3 = random_matrix(30, 50, 53, d, 10);
    ASSERT_EQ(std::memcmp(x1.data(), x2.data(), x1.size() * sizeof(float)), 0)
        << distribution_name(d);
    EXPECT_NE(std::memcmp(x1.data(), x3.data(), x1.size() * sizeof(float)), 0);
    for (std::int64_t r = 0; r < 30; ++r)
      for (std::int64_t c = 50; c < 53; ++c)
        ASSERT_TRUE(std::isnan(x1[r * 53 + c])) << "padding is NaN";
    for (std::int64_t rows : {1, 2, 4}) {
      auto const small = random_matrix(rows, 1, 1, d, 0);
      bool any = false;
      for (float v : small) any = any || v != 0.0f;
      EXPECT_TRUE(any) << distribution_name(d) << " rows " << rows;
    }
  }
}

TEST(Generators, DistributionProperties) {
  auto const nrm = random_matrix(200, 200, 200, Distribution::kNormal, 1);
  double sum = 0, sum2 = 0;
  for (float v : nrm) sum += v, sum2 += double(v) * v;
  EXPECT_NEAR(sum / nrm.size(), 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(sum2 / nrm.size()), 1.0, 0.02);
  auto const uni = random_matrix(100, 100, 100, Distribution::kUniform, 1);
  for (float v : uni) ASSERT_TRUE(v >= -1.0f && v <= 1.0f);
  auto const out = random_matrix(100, 100, 100, Distribution::kOutliers, 1);
  int big = 0;
  for (float v : out) big += std::fabs(v) > 50.0f;
  EXPECT_GE(big, 5);
  EXPECT_LE(big, 10);  // 10 outliers (one in 1000), a few may be small
  // kKRanges: every 32-wide block of K at 2^k_range_exponent (its RMS within a factor 2^0.3),
  // along the columns, or along the rows for a K x N operand
  auto const kr = random_matrix(64, 512, 512, Distribution::kKRanges, 1);
  auto const kr_t = random_matrix(512, 64, 64, Distribution::kKRanges, 1, /*k_along_rows=*/true);
  for (std::int64_t k0 = 0; k0 < 512; k0 += 32) {
    double s2 = 0, s2_t = 0;
    for (std::int64_t r = 0; r < 64; ++r)
      for (std::int64_t k = k0; k < k0 + 32; ++k) {
        s2 += double(kr[r * 512 + k]) * kr[r * 512 + k];
        s2_t += double(kr_t[k * 64 + r]) * kr_t[k * 64 + r];
      }
    EXPECT_NEAR(0.5 * std::log2(s2 / (64 * 32)), k_range_exponent(k0), 0.3) << "k " << k0;
    EXPECT_NEAR(0.5 * std::log2(s2_t / (64 * 32)), k_range_exponent(k0), 0.3) << "k " << k0;
  }
  EXPECT_EQ(k_range_exponent(0), -3);
  EXPECT_EQ(k_range_exponent(127), -3 - 3);
  EXPECT_EQ(k_range_exponent(128), 0);
  for (std::int64_t kb = 0; kb < 64; ++kb)  // neighbouring 128-blocks at least 2^3 apart
    EXPECT_GE(std::abs(k_range_exponent(128 * (kb + 1)) - k_range_exponent(128 * kb)), 3) << kb;
  auto const rr = random_matrix(40, 64, 64, Distribution::kRowRanges, 1);
  for (std::int64_t r = 0; r < 40; ++r) {
    float amax = 0;
    for (std::int64_t c = 0; c < 64; ++c) amax = std::fmax(amax, std::fabs(rr[r * 64 + c]));
    if (r % 7 == 3) {
      EXPECT_EQ(amax, 0.0f) << "row " << r;
    } else {
      double const scale = std::ldexp(1.0, static_cast<int>(r % 20) - 10);
      EXPECT_GT(amax, 0.5 * scale) << "row " << r;
      EXPECT_LT(amax, 6.0 * scale) << "row " << r;
    }
  }
}

// ---- metrics and poison -----------------------------------------------------------------------

TEST(Metrics, StatsRowsAndNonFinite) {
  std::vector<double> const ref = {1.0, 2.0, 0.0, -4.0, 1.0, NAN};
  std::vector<double> const out = {1.5, 2.0, 0.25, NAN, 1.0, NAN};
  ErrorStats const s = error_stats(out, ref, 2, 3);
  EXPECT_EQ(s.max_abs, 0.5);
  EXPECT_EQ(s.argmax_abs_m, 0);
  EXPECT_EQ(s.argmax_abs_n, 0);
  EXPECT_EQ(s.max_rel, 0.5);
  EXPECT_DOUBLE_EQ(s.mean_rel, 0.5 / 3.0);
  EXPECT_EQ(s.nan_count, 2);
  EXPECT_EQ(s.unexpected_non_finite, 1);
  EXPECT_EQ(s.zero_ref_count, 1);
  EXPECT_DOUBLE_EQ(s.normwise_rel, std::sqrt((0.25 + 0.0625) / (1 + 4 + 0 + 1)));
  std::vector<double> const rows = per_row_max_error(out, ref, 2, 3);
  EXPECT_EQ(rows[0], 0.5);
  EXPECT_TRUE(std::isnan(rows[1]));
  std::vector<double> const bound(6, 1.0);
  auto const r = all_within_bound(out, ref, bound, 2, 3);
  EXPECT_FALSE(r);  // NaN at (m 1, n 0) where ref is -4
  EXPECT_NE(std::string(r.message()).find("(m 1, n 0)"), std::string::npos) << r.message();
  std::vector<double> fixed = out;
  fixed[3] = -4.0;
  EXPECT_TRUE(all_within_bound(fixed, ref, bound, 2, 3));  // NaN ref matched by NaN out
}

TEST(Poison, PatternsAndWrittenCheck) {
  EXPECT_EQ(poison_byte<float>(), 0xFF);
  EXPECT_EQ(poison_byte<e4m3fn>(), 0xFF);
  EXPECT_EQ(poison_byte<e4m3fnuz>(), 0x80);
  EXPECT_EQ(poison_byte<e5m2fnuz>(), 0x80);
  std::vector<float> f(12);
  poison_host(f);
  for (float v : f) EXPECT_TRUE(std::isnan(v));
  std::vector<e4m3fnuz> q(12);
  poison_host(q);
  for (e4m3fnuz v : q) EXPECT_TRUE(std::isnan(fp8_to_float(v)));
  std::vector<bf16> h(12);
  poison_host(h);
  EXPECT_TRUE(std::isnan(bf16_to_float(h[0])));
  for (std::int64_t i = 0; i < 12; ++i) f[i] = float(i);
  EXPECT_TRUE(all_written(f.data(), 3, 4, 4));
  f[6] = float_from_bits(0xFFFFFFFFu);
  EXPECT_EQ(count_unwritten(f.data(), 3, 4, 4), 1);
  auto const r = all_written(f.data(), 3, 4, 4);
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("(row 1, col 2)"), std::string::npos) << r.message();
  EXPECT_TRUE(all_written(f.data(), 3, 2, 4)) << "only the first 2 columns are checked";
}

}  // namespace
}  // namespace fp8gemm::test
