// SPDX-License-Identifier: MIT
/// GemmConfig: one GEMM's compile-time choices, and the Params the kernel receives (kernel layer).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm {

/// Accumulation tags. PromoteEvery<K>: accumulate K of the reduction in the matrix unit, then add
/// the partial sum into FP32 registers (Hopper's recommended setting: 128). FastAccumulation: let
/// the matrix unit accumulate the whole K. AtomDefaultAccumulation: the atom's kDefaultPromoteK.
template <int K>
struct PromoteEvery {
  static_assert(K > 0, "promotion interval must be positive");
  static constexpr int kPromoteK = K;
};
struct FastAccumulation {
  static constexpr int kPromoteK = 0;
};
struct AtomDefaultAccumulation {
  static constexpr int kPromoteK = -1;
};

/// The scale element a granularity stores: float, or e8m0 for MX.
template <class G>
using ScaleElement = std::conditional_t<std::is_same_v<G, Mx32>, e8m0, float>;

/// Compile-time GEMM: C[M,N] = epilogue(A[M,K] (mk) * B (nk or kn), scales).
template <class PolicyT, class GranularityT, LayoutB LayoutBV, class EpilogueT,
          class AccumulationT = AtomDefaultAccumulation>
struct GemmConfig {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Epilogue = EpilogueT;
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  using ElementC = typename Epilogue::Element;
  using Scale = ScaleElement<Granularity>;
  static constexpr LayoutB kLayoutB = LayoutBV;
  static constexpr int kPromoteK = AccumulationT::kPromoteK < 0 ? Policy::Atom::kDefaultPromoteK
                                                                : AccumulationT::kPromoteK;

  /// What the kernel reads. Sizes in elements; leading dimensions in elements (= bytes for fp8).
  struct Params {
    int m = 0, n = 0, k = 0;
    ElementA const* a = nullptr;  // [M, K], K contiguous
    std::int64_t lda = 0;
    ElementB const* b = nullptr;  // [N, K] (kNK) or [K, N] (kKN)
    std::int64_t ldb = 0;
    Scale const* scale_a = nullptr;  // layout per granularity.hpp
    Scale const* scale_b = nullptr;
    std::int64_t scale_a_cols = 1;   // K blocks per row of the scale arrays (K-blocked only)
    std::int64_t scale_b_cols = 1;
    typename Epilogue::Params epilogue;
    int tiles_m = 1, tiles_n = 1;  // output tiles
    int group_m = 8;               // grouped tile order: this many tile rows per group
    int split_k = 1;               // K split over grid.y; partials reduced through `workspace`
    int k_tiles_per_split = 1;
    float* workspace = nullptr;    // [split_k][M][N] FP32 partial sums when split_k > 1
  };

  FP8GEMM_HOST_DEVICE static float scale_value(float s) { return s; }
  FP8GEMM_HOST_DEVICE static float scale_value(e8m0 s) { return s.to_float(); }

  /// s_a(m, kb) and s_b(n, kb) for the K block holding k (K-blocked granularities only).
  FP8GEMM_HOST_DEVICE static float a_block_scale(Params const& p, int m, int k) {
    return scale_value(p.scale_a[(m / Granularity::kABlockM) * p.scale_a_cols + k / Granularity::kBlockK]);
  }
  FP8GEMM_HOST_DEVICE static float b_block_scale(Params const& p, int n, int k) {
    return scale_value(p.scale_b[(n / Granularity::kBBlockN) * p.scale_b_cols + k / Granularity::kBlockK]);
  }

  /// (x · s_a) · s_b, in that order: the two scales are never multiplied on their own, so a pair
  /// whose product leaves FP32 (1e20 · 1e20) still scales a representable x to a representable
  /// result, and x = 0 stays 0 instead of 0 · inf = NaN.
  FP8GEMM_HOST_DEVICE static float scale_twice(float x, float s_a, float s_b) { return (x * s_a) * s_b; }

  /// acc · s_a[m] · s_b[n] after the K loop (per-tensor / per-channel); acc itself when K-blocked
  /// (the mainloop applied those scales per K block).
  FP8GEMM_HOST_DEVICE static float apply_epilogue_scales(Params const& p, int m, int n, float acc) {
    if constexpr (std::is_same_v<Granularity, PerTensor>) {
      return scale_twice(acc, p.scale_a[0], p.scale_b[0]);
    } else if constexpr (std::is_same_v<Granularity, PerChannel>) {
      return scale_twice(acc, p.scale_a[m], p.scale_b[n]);
    } else {
      (void)p, (void)m, (void)n;
      return acc;
    }
  }
};

}  // namespace fp8gemm
