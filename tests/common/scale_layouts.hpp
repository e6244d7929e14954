// SPDX-License-Identifier: MIT
/// Scale arrays in the layouts the GEMMs accept besides row-major (test helpers, fp8gemm::test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace fp8gemm::test {

/// Row-major [rows][cols] block scales as the K-block-major [cols][ld] array that
/// Gemm::Arguments::scale_a_ld describes (torch's column-major (M, K/128) A scales): entry
/// (r, kb) at kb * ld + r, NaN in the ld - rows entries between one K block's rows and the
/// next's, so a kernel reading past a block's rows propagates NaN into its output. ld >= rows.
template <class T>
std::vector<T> k_block_major(std::vector<T> const& row_major, std::int64_t rows, std::int64_t cols,
                             std::int64_t ld) {
  std::vector<T> out(static_cast<std::size_t>(cols * ld), std::numeric_limits<T>::quiet_NaN());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t kb = 0; kb < cols; ++kb)
      out[static_cast<std::size_t>(kb * ld + r)] =
          row_major[static_cast<std::size_t>(r * cols + kb)];
  return out;
}

}  // namespace fp8gemm::test
