// SPDX-License-Identifier: MIT
/// What a mainloop and an epilogue read from global memory (tile layer): operand views (pointer,
/// leading dimension, extents) and scale views per granularity, and the one way scales multiply.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm {

/// The scale element a granularity stores: float, or e8m0 for MX.
template <class G>
using ScaleElement = std::conditional_t<std::is_same_v<G, Mx32>, e8m0, float>;

/// A row-major matrix in global memory: `rows` x `cols` elements, row r at data + r * ld (ld in
/// elements, = bytes for fp8).
template <class T>
struct MatrixView {
  T const* data = nullptr;
  std::int64_t ld = 0;
  int rows = 0;
  int cols = 0;
};

/// One operand's scales (quant/granularity.hpp): `extent` rows of the operand (M for A, N for B)
/// in blocks of `rows_per_block`, `cols` K blocks (1 unless K-blocked). Stored row-major,
/// [ceil(extent / block rows)][cols] (ld = 0), or K-block-major (ld > 0: K block kb of scale row
/// r at kb * ld + r, ld >= the scale rows; torch's column-major (M, K/128) Blockwise A scales).
template <class Granularity>
struct ScaleView {
  using Element = ScaleElement<Granularity>;
  Element const* data = nullptr;
  std::int64_t cols = 1;
  int extent = 0;
  std::int64_t ld = 0;

  FP8GEMM_HOST_DEVICE static float to_float(float s) { return s; }
  FP8GEMM_HOST_DEVICE static float to_float(e8m0 s) { return s.to_float(); }

  /// The scale of operand row `row` (A: m, B: n) and the K block holding k (K-blocked only).
  FP8GEMM_HOST_DEVICE float block(int row, int k, int rows_per_block) const {
    std::int64_t const r = row / rows_per_block, kb = k / Granularity::kBlockK;
    return to_float(data[ld == 0 ? r * cols + kb : kb * ld + r]);
  }
  /// The same in two steps, with 32-bit offsets (callers that bound the array below 2^31
  /// elements): where row `row`'s K blocks start, once; then K block kb's scale,
  /// at(start + kb * k_stride()).
  FP8GEMM_HOST_DEVICE int row_start(int row, int rows_per_block) const {
    return ld == 0 ? (row / rows_per_block) * static_cast<int>(cols) : row / rows_per_block;
  }
  FP8GEMM_HOST_DEVICE int k_stride() const { return ld == 0 ? 1 : static_cast<int>(ld); }
  FP8GEMM_HOST_DEVICE float at(int offset) const { return to_float(data[offset]); }
  /// Elements from the first scale to one past the last (what the array must hold).
  FP8GEMM_HOST_DEVICE std::int64_t span(int rows_per_block) const {
    std::int64_t const rows = (std::int64_t{extent} + rows_per_block - 1) / rows_per_block;
    return ld == 0 ? rows * cols : (cols - 1) * ld + rows;
  }
  /// Per-tensor: the one scale; per-channel: the scale of row `row`.
  FP8GEMM_HOST_DEVICE float tensor() const { return to_float(data[0]); }
  FP8GEMM_HOST_DEVICE float channel(int row) const { return to_float(data[row]); }
};

/// (x · s_a) · s_b, in that order: the two scales are never multiplied on their own, so a pair
/// whose product leaves FP32 (1e20 · 1e20) still scales a representable x to a representable
/// result, and x = 0 stays 0 instead of 0 · inf = NaN.
FP8GEMM_HOST_DEVICE float scale_twice(float x, float s_a, float s_b) {
  return (x * s_a) * s_b;
}

}  // namespace fp8gemm
