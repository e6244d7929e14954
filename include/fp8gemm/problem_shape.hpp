// SPDX-License-Identifier: MIT
/// ProblemShape: the extents of a GEMM problem, the one type every layer takes them from (device,
/// kernel, tile scheduler, mainloop, epilogue); OutputBounds: the rows and columns of C a tile may
/// store.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// C[l] = A[l] · B[l] for l in [0, L): A [M, K], B [N, K] or [K, N], C [M, N]. L = 1 is one GEMM;
/// a batched or grouped problem extends it (L problems of one shape, or L groups).
struct ProblemShape {
  int m = 0, n = 0, k = 0;
  int l = 1;

  /// Output tiles of BlockM x BlockN along M and N (64-bit: M and N are checked only later).
  template <int BlockM>
  FP8GEMM_HOST_DEVICE constexpr std::int64_t tiles_m() const {
    return (std::int64_t(m) + BlockM - 1) / BlockM;
  }
  template <int BlockN>
  FP8GEMM_HOST_DEVICE constexpr std::int64_t tiles_n() const {
    return (std::int64_t(n) + BlockN - 1) / BlockN;
  }
  /// K tiles of BlockK (the last one partial when BlockK does not divide K).
  template <int BlockK>
  FP8GEMM_HOST_DEVICE constexpr int k_tiles() const {
    return (k + BlockK - 1) / BlockK;
  }
};

/// Exclusive limits of the outputs a tile may store: rows m < m_end, columns n < n_end of C. One
/// GEMM: (M, N); a grouped problem: the end of the tile's group along M.
struct OutputBounds {
  int m_end = 0, n_end = 0;
  FP8GEMM_HOST_DEVICE static constexpr OutputBounds of(ProblemShape const& p) { return {p.m, p.n}; }
};

/// Where one group of a grouped or batched problem lives: the epilogue rebases C, the bias and
/// the epilogue's scales by it (DirectStoreEpilogue::for_group); the mainloop reads the group's
/// rows of the flattened operands (A [rows, K], B [rows, K]) at a_row and b_row, and their
/// K-blocked scales, which follow those rows.
struct GroupOffsets {
  int group = 0;
  std::int64_t c = 0;     // elements from C to the group's C[0][0]
  int c_row = 0;          // the group's first row of flattened C (a TMA store's coordinate)
  std::int64_t bias = 0;  // elements from the bias to the group's [N] (bias is [G, N])
  int a_row = 0;          // the group's first row of flattened A (= of A's per-row scales)
  int b_row = 0;          // the group's first row of flattened B (= of B's per-row scales)
  int a_tensor = 0;       // per-tensor scales: the index of the group's A scale (0 when shared)
};

}  // namespace fp8gemm
