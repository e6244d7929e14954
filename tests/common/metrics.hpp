// SPDX-License-Identifier: MIT
/// Error metrics of a result against the FP64 reference, and the per-element bound check that
/// names the first failing (m, n) (test helpers, namespace fp8gemm::test).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

namespace fp8gemm::test {

/// Summary of out vs ref over an M x N row-major result.
/// Relative errors skip elements with ref == 0 (counted in zero_ref_count); the normwise error
/// is ‖out − ref‖_F / ‖ref‖_F (0 if both are 0). Non-finite outputs are counted and excluded
/// from the other statistics; a NaN/Inf where the reference is finite counts as unexpected.
struct ErrorStats {
  double max_abs = 0.0;
  double max_rel = 0.0;
  double mean_rel = 0.0;
  double normwise_rel = 0.0;
  std::int64_t argmax_abs_m = -1;
  std::int64_t argmax_abs_n = -1;
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  std::int64_t unexpected_non_finite = 0;  // out NaN/Inf where ref is finite: always a failure
  std::int64_t zero_ref_count = 0;
};

inline ErrorStats error_stats(std::vector<double> const& out, std::vector<double> const& ref,
                              std::int64_t m, std::int64_t n) {
  ErrorStats s;
  double diff2 = 0.0;
  double ref2 = 0.0;
  double rel_sum = 0.0;
  std::int64_t rel_count = 0;
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t c = 0; c < n; ++c) {
      std::size_t const i = static_cast<std::size_t>(r * n + c);
      double const o = out[i];
      double const f = ref[i];
      if (std::isnan(o)) ++s.nan_count;
      if (std::isinf(o)) ++s.inf_count;
      if (!std::isfinite(o)) {
        if (std::isfinite(f)) ++s.unexpected_non_finite;
        continue;
      }
      double const e = std::fabs(o - f);
      if (e > s.max_abs || s.argmax_abs_m < 0) {
        s.max_abs = e > s.max_abs ? e : s.max_abs;
        s.argmax_abs_m = r;
        s.argmax_abs_n = c;
      }
      diff2 += e * e;
      ref2 += f * f;
      if (f == 0.0) {
        ++s.zero_ref_count;
      } else {
        double const rel = e / std::fabs(f);
        s.max_rel = rel > s.max_rel ? rel : s.max_rel;
        rel_sum += rel;
        ++rel_count;
      }
    }
  }
  s.mean_rel = rel_count > 0 ? rel_sum / static_cast<double>(rel_count) : 0.0;
  s.normwise_rel = ref2 > 0.0 ? std::sqrt(diff2 / ref2) : (diff2 > 0.0 ? INFINITY : 0.0);
  return s;
}

inline double max_abs_error(std::vector<double> const& out, std::vector<double> const& ref) {
  return error_stats(out, ref, 1, static_cast<std::int64_t>(out.size())).max_abs;
}

inline double normwise_relative_error(std::vector<double> const& out,
                                      std::vector<double> const& ref) {
  return error_stats(out, ref, 1, static_cast<std::int64_t>(out.size())).normwise_rel;
}

/// max_n |out[m][n] − ref[m][n]| per row (NaN if the row has a non-finite output).
inline std::vector<double> per_row_max_error(std::vector<double> const& out,
                                             std::vector<double> const& ref, std::int64_t m,
                                             std::int64_t n) {
  std::vector<double> rows(static_cast<std::size_t>(m), 0.0);
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t c = 0; c < n; ++c) {
      double const e = std::fabs(out[r * n + c] - ref[r * n + c]);
      if (std::isnan(e)) {
        rows[r] = NAN;
      } else if (!std::isnan(rows[r]) && e > rows[r]) {
        rows[r] = e;
      }
    }
  }
  return rows;
}

/// Success iff every |out − ref| ≤ bound (and out is finite wherever ref is); otherwise names the
/// first failing (m, n) in row-major order with out, ref, |out − ref| and bound, and the number of
/// failures.
inline ::testing::AssertionResult all_within_bound(std::vector<double> const& out,
                                                   std::vector<double> const& ref,
                                                   std::vector<double> const& bound, std::int64_t m,
                                                   std::int64_t n) {
  std::int64_t failures = 0;
  std::ostringstream first;
  first.precision(9);
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t c = 0; c < n; ++c) {
      std::size_t const i = static_cast<std::size_t>(r * n + c);
      double const e = std::fabs(out[i] - ref[i]);
      bool const ok = std::isfinite(ref[i])
                          ? (std::isfinite(out[i]) && e <= bound[i])
                          : (std::isnan(ref[i]) ? std::isnan(out[i]) : out[i] == ref[i]);
      if (ok) continue;
      if (failures++ == 0) {
        first << "first failure at (m " << r << ", n " << c << "): out " << out[i] << ", ref "
              << ref[i] << ", |out - ref| " << e << " > bound " << bound[i];
      }
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << failures << " of " << m * n << " elements outside the bound; " << first.str();
}

}  // namespace fp8gemm::test
