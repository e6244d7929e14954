// SPDX-License-Identifier: MIT
/// Host reference quantizers: per-block amax, scales from amax, and fp8 quantization of A and B for
/// every granularity, RNE or stochastic (quant layer). The GPU kernels in quantize_kernels.hpp give
/// bit-identical results. Conventions: see quantize_common.hpp (s = amax / fmt_max, q = fp8(x /
/// s)).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "fp8gemm/quant/quantize_common.hpp"

namespace fp8gemm {

namespace detail {

/// amax bits of every scale block (NaN > Inf > finite), plus the first non-finite element in
/// row-major (r, k) order: first_bad = r * K + k, or -1 if every element is finite.
inline void amax_bits_host(float const* x, OperandView v, ScaleBlocking b,
                           std::vector<std::uint32_t>& bits, std::int64_t& first_bad) {
  bits.assign(static_cast<std::size_t>(b.count()), 0u);
  first_bad = -1;
  for (std::int64_t r = 0; r < v.rows; ++r) {
    for (std::int64_t kk = 0; kk < v.k; ++kk) {
      std::uint32_t const a = abs_bits(x[v.offset(r, kk)]);
      std::uint32_t& slot = bits[static_cast<std::size_t>(b.index(r, kk))];
      if (a > slot) slot = a;
      if (!is_finite_bits(a) && first_bad < 0) first_bad = r * v.k + kk;
    }
  }
}

/// The shared pipeline of quantize_a_host / quantize_b_host.
template <class T, class G>
Status quantize_host_impl(Operand op, float const* x, OperandView v, T* q, std::int64_t ldq,
                          float* scales, e8m0* mx_scales, ScaleOptions options, Rounding rounding,
                          std::uint64_t seed, std::int64_t scale_ld = 0) {
  ScaleBlocking b = scale_blocking<G>(op, v.rows, v.k);
  b.ld = scale_ld;
  std::vector<std::uint32_t> bits;
  std::int64_t first_bad = -1;
  amax_bits_host(x, v, b, bits, first_bad);

  // Scales first: a block with a non-finite amax gets a NaN scale, so an ignored status still
  // shows.
  std::vector<float> s(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    float const amax = float_from_bits(bits[i]);
    if constexpr (std::is_same_v<G, Mx32>) {
      mx_scales[i] = mx_scale_from_amax<T>(amax);
      s[i] = mx_scale_value(mx_scales[i]);
    } else {
      s[i] = scale_from_amax<T>(amax, options);
      scales[b.store_index(static_cast<std::int64_t>(i))] = s[i];
    }
  }
  if (first_bad >= 0) {
    std::int64_t const r = first_bad / v.k;
    std::int64_t const kk = first_bad % v.k;
    return non_finite_input(op, x[v.offset(r, kk)], r, kk);
  }

  OperandView const qv{v.rows, v.k, ldq, v.k_contiguous};
  for (std::int64_t r = 0; r < v.rows; ++r) {
    for (std::int64_t kk = 0; kk < v.k; ++kk) {
      float const scale = s[static_cast<std::size_t>(b.index(r, kk))];
      q[qv.offset(r, kk)] = quantize_value<T>(x[v.offset(r, kk)], scale, rounding, seed,
                                              static_cast<std::uint64_t>(r * v.k + kk));
    }
  }
  return Status::success();
}

template <class G>
void amax_host_impl(Operand op, float const* x, OperandView v, float* amax) {
  ScaleBlocking const b = scale_blocking<G>(op, v.rows, v.k);
  std::vector<std::uint32_t> bits;
  std::int64_t first_bad = -1;
  amax_bits_host(x, v, b, bits, first_bad);
  for (std::size_t i = 0; i < bits.size(); ++i) amax[i] = float_from_bits(bits[i]);
}

}  // namespace detail

/// amax[i] = max |x| over scale block i of A (granularity G). NaN if the block holds a NaN, else
/// Inf if it holds an Inf (reported, not hidden; forming a scale from it is an error).
template <class G>
[[nodiscard]] Status amax_a_host(AmaxAArgs const& args) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  detail::amax_host_impl<G>(Operand::kA, args.x, view_a(args.m, args.k, args.lda), args.amax);
  return Status::success();
}

/// amax[i] = max |x| over scale block i of B (blocks counted over (n, k)), either layout.
template <class G>
[[nodiscard]] Status amax_b_host(AmaxBArgs const& args) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  detail::amax_host_impl<G>(Operand::kB, args.x, view_b(args.n, args.k, args.ldb, args.layout),
                            args.amax);
  return Status::success();
}

/// scales[i] = scale_from_amax<T>(amax[i]) (Mx32: mx_scales[i] = mx_scale_from_amax<T>(amax[i])).
/// Every entry is written; a non-finite amax gets a NaN scale and the status names the first one.
template <class T, class G>
[[nodiscard]] Status scales_from_amax_host(ScalesFromAmaxArgs const& args) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  std::int64_t first_bad = -1;
  for (std::int64_t i = 0; i < args.count; ++i) {
    float const amax = args.amax[i];
    if (!is_finite_bits(abs_bits(amax)) && first_bad < 0) first_bad = i;
    if constexpr (std::is_same_v<G, Mx32>) {
      args.mx_scales[i] = mx_scale_from_amax<T>(amax);
    } else {
      args.scales[i] = scale_from_amax<T>(amax, args.options);
    }
  }
  if (first_bad >= 0)
    return detail::non_finite_amax<G>(args.operand, args.amax[first_bad], first_bad);
  return Status::success();
}

/// Quantizes A: scales per G from the block amax, then q = fp8(x / s) (RNE or stochastic).
/// Non-finite input: kErrorInvalidArgument naming the first one (row, k); q is then not written.
template <class T, class G>
[[nodiscard]] Status quantize_a_host(QuantizeAArgs<T> const& args) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::quantize_host_impl<T, G>(
      Operand::kA, args.x, view_a(args.m, args.k, args.lda), args.q, args.ldq, args.scales,
      args.mx_scales, args.scale_options, args.rounding, args.seed, args.scale_ld);
}

/// Quantizes B (either layout; q keeps the layout of x with leading dimension ldq).
template <class T, class G>
[[nodiscard]] Status quantize_b_host(QuantizeBArgs<T> const& args) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::quantize_host_impl<T, G>(
      Operand::kB, args.x, view_b(args.n, args.k, args.ldb, args.layout), args.q, args.ldq,
      args.scales, args.mx_scales, args.scale_options, args.rounding, args.seed);
}

}  // namespace fp8gemm
