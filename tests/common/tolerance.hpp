// SPDX-License-Identifier: MIT
/// Per-element error bound of an FP8 GEMM with FP32 (or narrower) accumulation against the FP64
/// reference of reference_gemm.hpp (test helpers, namespace fp8gemm::test).
///
/// Derivation (Higham, "Accuracy and Stability of Numerical Algorithms", §3.1):
///   1. Every fp8 x fp8 product is exact in FP32 (<= 4 x 4 significant bits), and so is each
///      dequantized value q·s in FP64, so the only errors are the accumulator's roundings.
///   2. A sum of K terms in a format with unit roundoff u, in any order and tree shape, satisfies
///        |fl(Σ p_k) − Σ p_k| ≤ γ_K · Σ |p_k|,   γ_n = n·u / (1 − n·u).
///      Each further rounded operation on the path of one output (each of the two scale multiplies
///      (acc·s_a)·s_b; per K block of a K-blocked granularity the two multiplies of the partial sum
///      and its add into the main accumulator; the bias add) adds one more factor (1 + δ), |δ| ≤ u,
///      so with
///        K' = K + extra_ops:   |z_kernel − z| ≤ γ_{K'} · (Σ_k |a_k b_k| + |bias_n|),
///      where a, b are the dequantized (scaled) operands and z = C + bias. u = 2^-24 for FP32;
///      some tensor cores keep fewer bits while accumulating, hence the parameter.
///   3. The activation is Lipschitz: |act(z') − act(z)| ≤ L·|z' − z|, L = 1 (identity),
///      L = 1.13 (GELU-erf: gelu' = Φ(x) + x·φ(x), max 1.1289 at x = √2; GELU-tanh: max ≈ 1.129
///      near x ≈ 1.5; min of both ≈ −0.13, so |gelu'| ≤ 1.13). The kernel evaluates act in float:
///      add activation_eval_ulps · 2^-24 · (|y| + |z|) (erf and GELU-erf's 0.5·z·(1 + t)
///      cancellation for negative z; GELU-tanh's z / (1 + 2^t) with the device's approximate
///      exp2 and reciprocal: with e_x and e_r their relative errors and t's three roundings
///      (about 4u · |t|), the error is at most ((e_x + 4u |t| ln 2) 2^t / (1 + 2^t) + 2u + e_r)
///      · |y| and |y| / (|y| + |z|) = 1 / (2 + 2^t): below 2.7 ulps of |y| + |z| for e_x <= 4u,
///      e_r <= 2u (largest near t = -1.9; 2.3 with the measured ones). On the H200 (ex2.approx.ftz,
///      rcp.approx.ftz; EpilogueApproximations in tests/gpu/wgmma_first_light_gpu_test.cu, every
///      input) e_x = 2.45u, e_r = 1.65u, and GELU-tanh itself is within 1.47 ulps over every FP32 z
///      with |z| <= 64).
///   4. Output rounding (RNE) adds half an ulp of the output format at the kernel's value, bounded
///      by the ulp at v = |y| + (terms 2-3): f32 u = 2^-24, bf16 2^-8, f16 2^-11 (relative, with
///      the subnormal spacing as the floor), fp8 per format with its subnormal spacing; fp8 outputs
///      are q = fp8(y / s_out), so their ulp is s_out·ulp_fp8(v / s_out), and saturation at the
///      format max adds (v − max·s_out) when v exceeds it. f16 overflows to Inf (no bound is finite
///      then).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/reference_gemm.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

inline constexpr double kFp32UnitRoundoff = 0x1p-24;
inline constexpr double kGeluLipschitz = 1.13;

/// γ_n = n·u / (1 − n·u); +Inf when n·u ≥ 1 (no bound).
inline double gamma_n(std::int64_t n, double u = kFp32UnitRoundoff) {
  double const nu = static_cast<double>(n) * u;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

/// Lipschitz constant of the activation (max |act'|).
inline double activation_lipschitz(Activation a) {
  return a == Activation::kIdentity ? 1.0 : kGeluLipschitz;
}

/// Mantissa bits, smallest normal exponent and largest finite value of an output format.
struct OutputFormat {
  int mantissa_bits;
  int min_exponent;  // exponent of the smallest normal
  double max_finite;
  bool saturates;  // fp8 outputs are converted saturating; f32/bf16/f16 overflow to Inf
};

inline OutputFormat output_format(OutputType t) {
  switch (t) {
    case OutputType::kF32:
      return {23, -126, double(std::numeric_limits<float>::max()), false};
    case OutputType::kBf16:
      return {7, -126, double(FormatTraits<bf16>::kMaxFinite), false};
    case OutputType::kF16:
      return {10, -14, double(FormatTraits<fp16>::kMaxFinite), false};
    case OutputType::kE4m3fn:
      return {3, -6, double(FormatTraits<e4m3fn>::kMaxFinite), true};
    case OutputType::kE5m2:
      return {2, -14, double(FormatTraits<e5m2>::kMaxFinite), true};
    case OutputType::kE4m3fnuz:
      return {3, -7, double(FormatTraits<e4m3fnuz>::kMaxFinite), true};
    case OutputType::kE5m2fnuz:
      return {2, -15, double(FormatTraits<e5m2fnuz>::kMaxFinite), true};
  }
  return {23, -126, double(std::numeric_limits<float>::max()), false};
}

/// ulp of the format at magnitude v: 2^(max(floor(log2 v), emin) − mantissa_bits).
inline double ulp_at(OutputFormat f, double v) {
  int e = f.min_exponent;
  if (v > 0.0) {
    int const ev = std::ilogb(v);
    if (ev > e) e = ev;
  }
  return std::ldexp(1.0, e - f.mantissa_bits);
}

/// Largest |rounded − v'| for any v' with |v'| ≤ v, in units of the value (fp8: v / s_out scaled):
/// s·(ulp(min(v/s, max)) / 2 + max(0, v/s − max)) for saturating formats; half an ulp otherwise
/// (+Inf past the overflow threshold max + ulp/2 of a non-saturating format).
inline double output_rounding_bound(OutputType t, double v, double out_scale = 1.0) {
  OutputFormat const f = output_format(t);
  double const s = is_fp8_output(t) ? out_scale : 1.0;
  double const w = std::fabs(v) / s;
  if (f.saturates) {
    double const clamp = w < f.max_finite ? w : f.max_finite;
    double const excess = w > f.max_finite ? w - f.max_finite : 0.0;
    // NOTE: y / s_out is itself a float division: one more 2^-24 relative rounding
    return s * (0.5 * ulp_at(f, clamp) + excess + w * kFp32UnitRoundoff);
  }
  if (w >= f.max_finite + 0.5 * ulp_at(f, f.max_finite))
    return std::numeric_limits<double>::infinity();
  return 0.5 * ulp_at(f, w);
}

/// Everything the bound depends on besides the element.
struct ToleranceParams {
  std::int64_t k = 0;                        // reduction length
  std::int64_t extra_ops = 0;                // scale multiplies + block promotions + bias add
  double unit_roundoff = kFp32UnitRoundoff;  // accumulator unit roundoff (2^-24 for FP32)
  // > 0: the matrix unit accumulates chunks of chunk_k products with unit_roundoff (Hopper's
  // tensor core: 2^-13), each chunk then promoted into FP32 (the extra_ops, at 2^-24).
  std::int64_t chunk_k = 0;
  Activation activation = Activation::kIdentity;
  OutputType output = OutputType::kF32;
  double out_scale = 1.0;             // s_out of fp8 outputs
  double activation_eval_ulps = 4.0;  // float evaluation error of act, in 2^-24 units
  // The bound is for |out − y| (EpilogueReference::y, exact). To compare with ::rounded instead,
  // set this: the reference's own rounding (half an ulp at |y|) is added, since y and the kernel's
  // value can round to neighbouring output values.
  bool compare_to_rounded = false;
};

/// Bound on |out − y| for one element, with abs_sum = Σ_k |a_k b_k| (+ |bias_n|), z = the exact
/// pre-activation and y = act(z) from reference_epilogue:
///   pre  = L · γ_{K + extra_ops}(u) · abs_sum + ulps · 2^-24 · (|y| + |z|)   (if act ≠ identity)
/// or, with chunk_k > 0 (promotion every chunk_k products out of an accumulator with roundoff u):
///   L · (γ_{c + c/16}(u) + γ_{extra_ops}(2^-24)) · abs_sum, c = chunk_k: per chunk its products
///   and, per 32 of them, the cut of the step's sum and of the running partial sum (2 per 32),
///   each relative to at most the chunk's Σ|a b|; summed over the chunks, Σ|a b| of all K; then
///   the FP32 promotion adds, scale multiplies and bias add.
///   out  = pre + output_rounding_bound(output, |y| + pre, s_out)     (the kernel rounds y')
///              + output_rounding_bound(output, |y|, s_out)            (compare_to_rounded only)
/// With the second term (the reference rounds y too, |y' - y| <= pre):
///   |q(y') - q(y)| <= |q(y') - y'| + |y' - y| + |y - q(y)| <= ulp/2 + pre + ulp/2.
inline double element_bound(ToleranceParams const& p, double abs_sum, double z, double y) {
  double const accumulation =
      p.chunk_k > 0 ? gamma_n(p.chunk_k + p.chunk_k / 16, p.unit_roundoff) + gamma_n(p.extra_ops)
                    : gamma_n(p.k + p.extra_ops, p.unit_roundoff);
  double pre = activation_lipschitz(p.activation) * accumulation * abs_sum;
  if (p.activation != Activation::kIdentity) {
    pre += p.activation_eval_ulps * kFp32UnitRoundoff * (std::fabs(y) + std::fabs(z));
  }
  double bound = pre + output_rounding_bound(p.output, std::fabs(y) + pre, p.out_scale);
  if (p.compare_to_rounded) bound += output_rounding_bound(p.output, std::fabs(y), p.out_scale);
  return bound;
}

/// Bounds of every element of an M x N result: abs_c from reference_gemm, bias double[N] or null.
inline std::vector<double> element_bounds(ToleranceParams const& p, GemmReference const& c,
                                          EpilogueReference const& e, double const* bias) {
  std::vector<double> bound(e.y.size());
  for (std::int64_t r = 0; r < c.m; ++r) {
    for (std::int64_t col = 0; col < c.n; ++col) {
      std::size_t const i = static_cast<std::size_t>(r * c.n + col);
      double const abs_sum = c.abs_c[i] + (bias != nullptr ? std::fabs(bias[col]) : 0.0);
      bound[i] = element_bound(p, abs_sum, e.z[i], e.y[i]);
    }
  }
  return bound;
}

}  // namespace fp8gemm::test
