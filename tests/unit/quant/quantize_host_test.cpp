// SPDX-License-Identifier: MIT
/// Host quantizer properties: amax per block, s = amax / fmt_max, RNE within half an fp8 ulp,
/// exact round trips, s = 1 for zero blocks, power-of-two scales, the MX rule, stochastic rounding
/// (unbiased, layout-independent) for every granularity x format x operand/layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "quant_test_util.hpp"

namespace fp8gemm::test {
namespace {

constexpr std::int64_t kRows = 37;
constexpr std::int64_t kK = 300;

/// ulp of format T at |v| (v in the fp8 value domain): 2^(max(floor(log2 |v|), emin) − mantissa).
template <class T>
double fp8_ulp(double v) {
  using F = FormatTraits<T>;
  int e = std::ilogb(F::kMinNormal);
  if (v != 0.0 && std::ilogb(std::fabs(v)) > e) e = std::ilogb(std::fabs(v));
  return std::ldexp(1.0, e - F::kMantissaBits);
}

std::string where(char const* op, char const* fmt, char const* gran, Distribution d) {
  return std::string(op) + " " + fmt + " " + gran + " " + distribution_name(d);
}

// RNE: |fp8(q) − x/s| ≤ ulp/2 at x/s (computed as the float x / s, as the quantizer does); the
// block's amax element maps to fmt_max (up to one float rounding) and every scale is
// amax / fmt_max, or 1 for an all-zero block.
TEST(QuantizeHost, NearestEvenWithinHalfUlpEveryGranularityFormatLayout) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<Granularities>([](auto g) {
      using G = decltype(g);
      for (OperandCase const& oc : kOperandCases) {
        for (Distribution d : kAllDistributions) {
          auto const qz =
              quantize_operand<T, G>(oc.op, oc.layout, kRows, kK, d, 7, Rounding::kNearestEven);
          std::string const ctx = where(oc.name, FormatTraits<T>::kName, G::kName, d);
          ASSERT_TRUE(qz.status.ok()) << ctx << ": " << qz.status.to_string();
          int bad = 0;
          for (std::size_t i = 0; i < qz.x.size() && bad < 3; ++i) {
            float const s = qz.scale_of[i];
            float const y = qz.x[i] / s;
            double const qv = fp8_to_float(qz.q_logical[i]);
            double const over = std::fabs(y) > FormatTraits<T>::kMaxFinite
                                    ? std::fabs(y) - FormatTraits<T>::kMaxFinite
                                    : 0.0;
            double const bound =
                0.5 * fp8_ulp<T>(std::fmin(std::fabs(y), FormatTraits<T>::kMaxFinite)) + over;
            if (!(std::fabs(qv - y) <= bound) || !(s > 0.0f) || !std::isfinite(s)) {
              ++bad;
              ADD_FAILURE() << ctx << " element " << i << ": x " << qz.x[i] << " s " << s << " q "
                            << qv << " bound " << bound;
            }
            // dequantized value within half an ulp · s of x (plus the float rounding of x / s)
            double const deq = qv * s;
            EXPECT_LE(std::fabs(deq - qz.x[i]), bound * s + std::fabs(qz.x[i]) * 0x1p-23) << ctx;
          }
          if constexpr (!std::is_same_v<G, Mx32>) {
            // every scale is amax / fmt_max of its block (recomputed independently), or 1
            std::int64_t const br = block_rows_of<G>(oc.op, kRows), bk = block_k_of<G>(kK);
            std::int64_t const cols = (kK + bk - 1) / bk;
            std::vector<float> amax(qz.scales.size(), 0.0f);
            for (std::int64_t r = 0; r < kRows; ++r)
              for (std::int64_t kk = 0; kk < kK; ++kk) {
                float& a = amax[(r / br) * cols + kk / bk];
                a = std::fmax(a, std::fabs(qz.x[r * kK + kk]));
              }
            for (std::size_t e = 0; e < amax.size(); ++e) {
              float const expect = amax[e] == 0.0f ? 1.0f : amax[e] / FormatTraits<T>::kMaxFinite;
              EXPECT_EQ(qz.scales[e], expect) << ctx << " scale " << e;
            }
          }
        }
      }
    });
  });
}

// amax_a_host / amax_b_host agree with a brute-force max over each block, both B layouts.
TEST(QuantizeHost, AmaxMatchesBruteForce) {
  for_each_type<Granularities>([](auto g) {
    using G = decltype(g);
    for (OperandCase const& oc : kOperandCases) {
      std::vector<float> const x = random_matrix(kRows, kK, kK, Distribution::kOutliers, 3);
      bool const kc = oc.op == Operand::kA || oc.layout == LayoutB::kNK;
      std::int64_t const ld = (kc ? kK : kRows) + 1;
      std::vector<float> xs(static_cast<std::size_t>((kc ? kRows : kK) * ld), NAN);
      for (std::int64_t r = 0; r < kRows; ++r)
        for (std::int64_t kk = 0; kk < kK; ++kk)
          xs[kc ? r * ld + kk : kk * ld + r] = x[r * kK + kk];
      std::int64_t const count = scale_shape<G>(oc.op, kRows, kK).size();
      std::vector<float> amax(count, -1.0f);
      Status const st =
          oc.op == Operand::kA
              ? amax_a_host<G>(AmaxAArgs{xs.data(), kRows, kK, ld, amax.data(), count})
              : amax_b_host<G>(AmaxBArgs{xs.data(), kRows, kK, ld, oc.layout, amax.data(), count});
      ASSERT_TRUE(st.ok()) << st.to_string();
      std::int64_t const br = block_rows_of<G>(oc.op, kRows), bk = block_k_of<G>(kK);
      std::int64_t const cols = (kK + bk - 1) / bk;
      std::vector<float> expect(count, 0.0f);
      for (std::int64_t r = 0; r < kRows; ++r)
        for (std::int64_t kk = 0; kk < kK; ++kk) {
          float& a = expect[(r / br) * cols + kk / bk];
          a = std::fmax(a, std::fabs(x[r * kK + kk]));
        }
      EXPECT_EQ(amax, expect) << oc.name << " " << G::kName;
    }
  });
}

// amax reports NaN (dominating Inf) and Inf; the quantizers refuse non-finite input by name.
TEST(QuantizeHost, NonFiniteInputIsReportedNotHidden) {
  std::vector<float> x = random_matrix(4, 64, 64, Distribution::kNormal, 1);
  x[1 * 64 + 5] = INFINITY;
  x[2 * 64 + 9] = NAN;
  x[3 * 64 + 1] = -INFINITY;
  std::vector<float> amax(4);
  ASSERT_TRUE(amax_a_host<PerChannel>(AmaxAArgs{x.data(), 4, 64, 64, amax.data(), 4}).ok());
  EXPECT_TRUE(std::isfinite(amax[0]));
  EXPECT_TRUE(std::isinf(amax[1]));
  EXPECT_TRUE(std::isnan(amax[2]));
  EXPECT_TRUE(std::isinf(amax[3]));
  std::vector<float> one(1);
  ASSERT_TRUE(amax_a_host<PerTensor>(AmaxAArgs{x.data(), 4, 64, 64, one.data(), 1}).ok());
  EXPECT_TRUE(std::isnan(one[0])) << "NaN must dominate Inf in amax";

  std::vector<e4m3fn> q(4 * 64);
  std::vector<float> s(4, 0.0f);
  Status const st = quantize_a_host<e4m3fn, PerChannel>(
      QuantizeAArgs<e4m3fn>{x.data(), 4, 64, 64, q.data(), 64, s.data(), nullptr, 4});
  EXPECT_EQ(st.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(st.message().find("A has a non-finite value (+inf) at row 1, k 5"), std::string::npos)
      << st.message();
  EXPECT_TRUE(std::isnan(s[1]) && std::isnan(s[2]) && std::isnan(s[3]) && s[0] > 0.0f)
      << "scales of non-finite blocks are NaN";

  // B, kKN storage: the first non-finite in (n, k) order is reported, whatever the storage order
  std::vector<float> bt(8 * 3, 1.0f);  // K = 8, N = 3, stored K x N
  bt[6 * 3 + 0] = NAN;                 // (k 6, n 0)
  bt[2 * 3 + 1] = INFINITY;            // (k 2, n 1)
  std::vector<e5m2> qb(8 * 3);
  std::vector<e8m0> mx(3);
  Status const sb = quantize_b_host<e5m2, Mx32>(
      QuantizeBArgs<e5m2>{bt.data(), 3, 8, 3, LayoutB::kKN, qb.data(), 3, nullptr, mx.data(), 3});
  EXPECT_EQ(sb.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(sb.message().find("B has a non-finite value (nan) at n 0, k 6"), std::string::npos)
      << sb.message();
  EXPECT_TRUE(mx[0].is_nan() && mx[1].is_nan() && !mx[2].is_nan());

  std::vector<float> am = {1.0f, NAN, 2.0f};
  std::vector<float> sc(3);
  Status const ss = scales_from_amax_host<e4m3fn, PerChannel>(
      ScalesFromAmaxArgs{Operand::kB, am.data(), 3, sc.data(), nullptr, {}});
  EXPECT_EQ(ss.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(ss.message().find("B per_channel: amax[1] is nan"), std::string::npos) << ss.message();
  EXPECT_EQ(sc[0], 1.0f / 448.0f);
  EXPECT_TRUE(std::isnan(sc[1]));
}

// x = c · 2^j with one ±fmt_max per block: s = 2^j exactly, and q reproduces c bit for bit,
// with RNE and with stochastic rounding (representable values never move).
TEST(QuantizeHost, ExactRoundTripOfRepresentableValues) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<Granularities>([](auto g) {
      using G = decltype(g);
      for (OperandCase const& oc : kOperandCases) {
        std::int64_t const br = block_rows_of<G>(oc.op, kRows), bk = block_k_of<G>(kK);
        std::int64_t const cols = (kK + bk - 1) / bk;
        std::mt19937_64 rng(11);
        std::vector<float> x(kRows * kK);
        std::vector<std::uint8_t> codes(kRows * kK);
        for (std::int64_t r = 0; r < kRows; ++r)
          for (std::int64_t kk = 0; kk < kK; ++kk) {
            std::int64_t const e = (r / br) * cols + kk / bk;
            bool const first_of_block = r % br == 0 && kk % bk == 0;
            std::uint8_t c;
            do {
              c = static_cast<std::uint8_t>(rng());
            } while (!std::isfinite(fp8_to_float(T::from_bits(c))) ||
                     fp8_to_float(T::from_bits(c)) == 0.0f);
            if (first_of_block)
              c = static_cast<std::uint8_t>(FormatTraits<T>::kMaxFiniteBits | (rng() & 0x80));
            codes[r * kK + kk] = c;
            int const j = static_cast<int>(e % 11) - 5;
            x[r * kK + kk] = std::ldexp(fp8_to_float(T::from_bits(c)), j);
          }
        for (Rounding rounding : {Rounding::kNearestEven, Rounding::kStochastic}) {
          auto const qz = quantize_operand<T, G>(oc.op, oc.layout, kRows, kK, Distribution::kNormal,
                                                 5, rounding, {}, &x);
          ASSERT_TRUE(qz.status.ok());
          int bad = 0;
          for (std::size_t i = 0; i < x.size() && bad < 3; ++i) {
            if (qz.q_logical[i].bits != codes[i]) {
              ++bad;
              ADD_FAILURE() << oc.name << " " << FormatTraits<T>::kName << " " << G::kName
                            << " element " << i << ": code " << int(codes[i]) << " -> "
                            << int(qz.q_logical[i].bits);
            }
          }
        }
      }
    });
  });
}

// All-zero rows (kRowRanges rows r % 7 == 3) get s = 1 (e8m0 2^0) and q = +0.
TEST(QuantizeHost, ZeroBlocksGetScaleOne) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<std::tuple<PerChannel, Blockwise<1, 128, 128>, Mx32>>([](auto g) {
      using G = decltype(g);
      auto const qz = quantize_operand<T, G>(Operand::kA, LayoutB::kNK, kRows, kK,
                                             Distribution::kRowRanges, 9, Rounding::kStochastic);
      ASSERT_TRUE(qz.status.ok());
      for (std::int64_t r = 3; r < kRows; r += 7)
        for (std::int64_t kk = 0; kk < kK; ++kk) {
          ASSERT_EQ(qz.scale_of[r * kK + kk], 1.0f) << G::kName << " row " << r;
          ASSERT_EQ(fp8_to_float(qz.q_logical[r * kK + kk]), 0.0f);
        }
    });
  });
  // an all-zero tensor and a tiny one (amax / fmt_max subnormal): s = 1, never 0 or NaN
  for (float v : {0.0f, 1e-40f, 1e-38f}) {
    std::vector<float> x(16, v);
    std::vector<e4m3fn> q(16);
    float s = -1.0f;
    ASSERT_TRUE((quantize_a_host<e4m3fn, PerTensor>(
                     QuantizeAArgs<e4m3fn>{x.data(), 2, 8, 8, q.data(), 8, &s, nullptr, 1}))
                    .ok());
    EXPECT_EQ(s, 1.0f) << v;
  }
  EXPECT_EQ(scale_from_amax<e4m3fn>(0.0f), 1.0f);
  EXPECT_EQ(scale_from_amax<e4m3fn>(448.0f * 0x1p-127f), 1.0f);       // s would be subnormal
  EXPECT_EQ(scale_from_amax<e4m3fn>(448.0f * 0x1p-126f), 0x1p-126f);  // smallest normal s is kept
  EXPECT_TRUE(std::isnan(scale_from_amax<e4m3fn>(INFINITY)));
  EXPECT_EQ(mx_scale_from_amax<e4m3fn>(0.0f).exponent(), 0);
}

// power_of_two: s = 2^ceil(log2(amax / fmt_max)), so |x / s| ≤ fmt_max and q never saturates.
TEST(QuantizeHost, PowerOfTwoScalesRoundUp) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<std::tuple<PerTensor, PerChannel, Blockwise<3, 5, 7>>>([](auto g) {
      using G = decltype(g);
      for (OperandCase const& oc : kOperandCases) {
        auto const qz = quantize_operand<T, G>(oc.op, oc.layout, kRows, kK, Distribution::kOutliers,
                                               2, Rounding::kNearestEven, ScaleOptions{true});
        ASSERT_TRUE(qz.status.ok());
        for (float s : qz.scales) {
          int e;
          EXPECT_EQ(std::frexp(s, &e), 0.5f) << "not a power of two: " << s;
        }
        for (std::size_t i = 0; i < qz.x.size(); ++i) {
          ASSERT_LE(std::fabs(qz.x[i] / qz.scale_of[i]), FormatTraits<T>::kMaxFinite);
        }
      }
    });
  });
  ScaleOptions const p2{true};
  EXPECT_EQ(scale_from_amax<e4m3fn>(448.0f, p2), 1.0f);
  EXPECT_EQ(scale_from_amax<e4m3fn>(449.0f, p2), 2.0f);
  EXPECT_EQ(scale_from_amax<e4m3fn>(100.0f, p2), 0.25f);
  EXPECT_EQ(scale_from_amax<e5m2>(57344.0f * 3.0f, p2), 4.0f);
}

// MX: shared exponent = floor(log2 amax) − emax(T); |x| / 2^e < 2^(emax + 1); saturating.
TEST(QuantizeHost, MxSharedExponentRule) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for (OperandCase const& oc : kOperandCases) {
      auto const qz = quantize_operand<T, Mx32>(
          oc.op, oc.layout, kRows, kK, Distribution::kRowRanges, 4, Rounding::kNearestEven);
      ASSERT_TRUE(qz.status.ok());
      std::int64_t const cols = (kK + 31) / 32;
      for (std::int64_t r = 0; r < kRows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) {
          float amax = 0.0f;
          for (std::int64_t kk = c * 32; kk < std::min<std::int64_t>(kK, c * 32 + 32); ++kk)
            amax = std::fmax(amax, std::fabs(qz.x[r * kK + kk]));
          int const expect = amax == 0.0f ? 0 : std::ilogb(amax) - FormatTraits<T>::kMaxExponent;
          ASSERT_EQ(qz.mx_scales[r * cols + c].exponent(), expect)
              << oc.name << " " << FormatTraits<T>::kName;
        }
      // elements above fmt_max after the division saturate to ±max (e4m3fn: up to 2^9 > 448)
      for (std::size_t i = 0; i < qz.x.size(); ++i) {
        float const y = qz.x[i] / qz.scale_of[i];
        ASSERT_LT(std::fabs(y), std::ldexp(1.0f, FormatTraits<T>::kMaxExponent + 1));
        if (std::fabs(y) > FormatTraits<T>::kMaxFinite) {
          ASSERT_EQ(std::fabs(fp8_to_float(qz.q_logical[i])), FormatTraits<T>::kMaxFinite);
        }
      }
    }
  });
}

// Stochastic: E[q] = x/s (mean over 32767 copies within 5 standard errors), each q is one of the
// two neighbours, same seed → same bits, other seed → other bits.
TEST(QuantizeHost, StochasticRoundingIsUnbiasedAndSeeded) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    float const fmax = FormatTraits<T>::kMaxFinite;
    for (float frac : {0.1f, 0.4f, 0.5f, 0.83f}) {
      // v between the fp8 neighbours lo = 1 and hi = 1 + ulp(1): v = lo + frac·ulp
      float const ulp = std::ldexp(1.0f, -FormatTraits<T>::kMantissaBits);
      float const v = 1.0f + frac * ulp;
      std::int64_t const n = 32768;
      std::vector<float> x(n, v);
      x[0] = fmax;  // pins s = 1
      std::vector<T> q(n), q2(n), q3(n);
      float s = 0.0f;
      QuantizeAArgs<T> a{x.data(), 1, n, n, q.data(), n, &s, nullptr, 1, {}, Rounding::kStochastic,
                         42};
      ASSERT_TRUE((quantize_a_host<T, PerTensor>(a)).ok());
      ASSERT_EQ(s, 1.0f);
      a.q = q2.data();
      ASSERT_TRUE((quantize_a_host<T, PerTensor>(a)).ok());
      a.q = q3.data();
      a.seed = 43;
      ASSERT_TRUE((quantize_a_host<T, PerTensor>(a)).ok());
      double sum = 0.0;
      int differ = 0;
      for (std::int64_t i = 1; i < n; ++i) {
        float const qv = fp8_to_float(q[i]);
        ASSERT_TRUE(qv == 1.0f || qv == 1.0f + ulp) << qv;
        sum += qv;
        ASSERT_EQ(q[i].bits, q2[i].bits);
        differ += q[i].bits != q3[i].bits;
      }
      double const mean = sum / double(n - 1);
      double const se = ulp * std::sqrt(frac * (1.0 - frac) / double(n - 1));
      EXPECT_NEAR(mean, v, 5.0 * se) << FormatTraits<T>::kName << " frac " << frac;
      EXPECT_GT(differ, 0) << "seed must change the bits";
    }
  });
}

// B quantized from N x K storage and from its K x N transpose gives the same q and scales, RNE
// and stochastic (the random index is n·K + k whatever the layout); A of the same matrix too.
TEST(QuantizeHost, LayoutsAgreeBitForBit) {
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<Granularities>([](auto g) {
      using G = decltype(g);
      for (Rounding rounding : {Rounding::kNearestEven, Rounding::kStochastic}) {
        auto const nk = quantize_operand<T, G>(Operand::kB, LayoutB::kNK, kRows, kK,
                                               Distribution::kNormal, 8, rounding);
        auto const kn = quantize_operand<T, G>(Operand::kB, LayoutB::kKN, kRows, kK,
                                               Distribution::kNormal, 8, rounding);
        ASSERT_TRUE(nk.status.ok() && kn.status.ok());
        for (std::size_t i = 0; i < nk.q_logical.size(); ++i)
          ASSERT_EQ(nk.q_logical[i].bits, kn.q_logical[i].bits);
        ASSERT_EQ(nk.scale_of, kn.scale_of);
        if constexpr (std::is_same_v<G, PerTensor> || std::is_same_v<G, PerChannel> ||
                      std::is_same_v<G, Mx32>) {
          // same block shapes for A and B: A of the same rows x K matrix matches too
          auto const a = quantize_operand<T, G>(Operand::kA, LayoutB::kNK, kRows, kK,
                                                Distribution::kNormal, 8, rounding);
          for (std::size_t i = 0; i < a.q_logical.size(); ++i)
            ASSERT_EQ(a.q_logical[i].bits, nk.q_logical[i].bits);
        }
      }
    });
  });
}

// random_bits is a pure function of (seed, index), spreads bits (each bit ~1/2), and differs
// across seeds and neighbouring indices.
TEST(RandomBits, CounterBasedAndBalanced) {
  EXPECT_EQ(random_bits(1, 2), random_bits(1, 2));
  EXPECT_NE(random_bits(1, 2), random_bits(1, 3));
  EXPECT_NE(random_bits(1, 2), random_bits(2, 2));
  int ones[32] = {};
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    std::uint32_t const b = random_bits(7, static_cast<std::uint64_t>(i));
    for (int j = 0; j < 32; ++j) ones[j] += (b >> j) & 1u;
  }
  for (int j = 0; j < 32; ++j) EXPECT_NEAR(ones[j], kN / 2, 5 * std::sqrt(kN / 4.0)) << "bit " << j;
}

}  // namespace
}  // namespace fp8gemm::test
