// SPDX-License-Identifier: MIT
/// Seeded matrix generators for the tests (std::mt19937_64): normal, uniform, outlier-heavy and
/// per-row ranges with all-zero rows; never all-zero overall (test helpers, fp8gemm::test).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace fp8gemm::test {

enum class Distribution {
  kNormal,     ///< N(0, 1)
  kUniform,    ///< U(-1, 1)
  kOutliers,   ///< N(0, 1) with max(1, count/1000) elements multiplied by 1000
  kRowRanges,  ///< N(0, 1) with row r scaled by 2^(r % 20 − 10); rows r % 7 == 3 all zero
  kKRanges,    ///< N(0, 1) with each k scaled by k_range_exponent(k): see there
};

/// kKRanges' exponent of index k along K: 128-wide K blocks at 2^-3 .. 2^3 (((k / 128) · 3) % 7
/// − 3: neighbouring blocks at least 2^3 apart), and inside each the four 32-wide blocks 2^0,
/// 2^-1, 2^-2, 2^-3 of it. A 1 x 128 / 128 x 128 scale read for another k-block, or an MX-32
/// scale for another 32, then scales a partial sum by the wrong power of two (at least 2x off)
/// where N(0, 1) data's scales differ by some tens of percent, which the FP64 bound can let
/// through. Small enough for fp16 C: |C| stays within a few thousand at K in the thousands.
inline int k_range_exponent(std::int64_t k) {
  return static_cast<int>((k / 128) * 3 % 7) - 3 - static_cast<int>((k / 32) % 4);
}

inline char const* distribution_name(Distribution d) {
  switch (d) {
    case Distribution::kNormal:
      return "normal";
    case Distribution::kUniform:
      return "uniform";
    case Distribution::kOutliers:
      return "outliers";
    case Distribution::kRowRanges:
      return "row_ranges";
    case Distribution::kKRanges:
      return "k_ranges";
  }
  return "?";
}

inline constexpr Distribution kAllDistributions[] = {
    Distribution::kNormal, Distribution::kUniform, Distribution::kOutliers,
    Distribution::kRowRanges, Distribution::kKRanges};

/// Row-major rows x cols matrix with leading dimension ld (>= cols); padding (ld − cols) is NaN so
/// a kernel that reads it is caught. Deterministic in (rows, cols, ld, d, seed). Row 0 is never
/// zero, so the matrix is never all zero. kRowRanges: "row" is the storage row (for a K x N B, a
/// k). kKRanges: K runs along the columns, or along the rows with k_along_rows (a K x N B).
inline std::vector<float> random_matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                        Distribution d, std::uint64_t seed,
                                        bool k_along_rows = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(rows * ld),
                       std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t r = 0; r < rows; ++r) {
    float const row_scale =
        d == Distribution::kRowRanges
            ? (r % 7 == 3 ? 0.0f : std::ldexp(1.0f, static_cast<int>(r % 20) - 10))
            : 1.0f;
    for (std::int64_t c = 0; c < cols; ++c) {
      float v = d == Distribution::kUniform ? uniform(rng) : normal(rng);
      if (d == Distribution::kKRanges) v = std::ldexp(v, k_range_exponent(k_along_rows ? r : c));
      x[r * ld + c] = v * row_scale;
    }
    // a nonzero first element keeps row 0 (and so the matrix) from being all zero
    if (r == 0 && x[0] == 0.0f) x[0] = 1.0f;
  }
  if (d == Distribution::kOutliers) {
    std::int64_t const count = rows * cols / 1000 > 0 ? rows * cols / 1000 : 1;
    std::uniform_int_distribution<std::int64_t> pick(0, rows * cols - 1);
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t const e = pick(rng);
      x[(e / cols) * ld + e % cols] *= 1000.0f;
    }
  }
  return x;
}

/// Bias vector of n values ~ N(0, 1) scaled by `scale`.
inline std::vector<double> random_bias(std::int64_t n, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> b(static_cast<std::size_t>(n));
  for (double& v : b) v = scale * normal(rng);
  return b;
}

}  // namespace fp8gemm::test
