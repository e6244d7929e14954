// SPDX-License-Identifier: MIT
/// Element functors of the fused epilogue (epilogue layer). Host+device, so the FP64 reference's
/// tests and the host emulator use exactly these formulas (device code evaluates GELU-tanh's
/// exp2 and division with the hardware's approximations: arch::div_one_plus_exp2).
#pragma once

#include <cmath>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm {

/// y = x
struct Identity {
  static constexpr char const* kName = "identity";
  FP8GEMM_HOST_DEVICE static float apply(float x) { return x; }
};

/// y = 0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3)   (the tanh approximation of GELU)
/// evaluated as y = x / (1 + 2^t), t = -2 u log2(e) = x (c1 + c3 x^2) with c1 = -2 sqrt(2/pi)
/// log2(e) and c3 = 0.044715 c1 (0.5 (1 + tanh u) is the logistic function of 2u): no
/// cancellation in 1 + tanh u for negative x; c1 and c3 have one sign, so c1 + c3 x^2 does not
/// cancel either; on the GPU one approximate exp2 and one reciprocal (arch::div_one_plus_exp2).
struct GeluTanh {
  static constexpr char const* kName = "gelu_tanh";
  FP8GEMM_HOST_DEVICE static float apply(float x) {
    float const c1 = -2.302208198144325f;   // -2 sqrt(2/pi) log2(e)
    float const c3 = -0.1029432395800235f;  // 0.044715 c1
    return arch::div_one_plus_exp2(x, x * fmaf(c3, x * x, c1));
  }
};

/// y = 0.5 x (1 + erf(x / sqrt(2)))   (exact GELU)
struct GeluErf {
  static constexpr char const* kName = "gelu_erf";
  FP8GEMM_HOST_DEVICE static float apply(float x) {
    float const kInvSqrt2 = 0.7071067811865476f;
    return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
  }
};

template <class T>
inline constexpr bool is_output_fp8_v = std::is_same_v<T, e4m3fn> || std::is_same_v<T, e5m2> ||
                                        std::is_same_v<T, e4m3fnuz> || std::is_same_v<T, e5m2fnuz>;

/// Output conversion with round-to-nearest-even: float, bf16, fp16 store y; fp8 formats store
/// q = fp8(y / s_out) saturating to the format's max (s_out = the output's dequant scale).
template <class ElementC>
FP8GEMM_HOST_DEVICE ElementC convert_output(float y, float output_scale) {
  if constexpr (std::is_same_v<ElementC, float>) {
    (void)output_scale;
    return y;
  } else if constexpr (std::is_same_v<ElementC, bf16>) {
    (void)output_scale;
    return float_to_bf16(y);
  } else if constexpr (std::is_same_v<ElementC, fp16>) {
    (void)output_scale;
    return arch::to_fp16(y);  // hardware rounding on CDNA
  } else {
    static_assert(is_output_fp8_v<ElementC>, "output must be float, bf16, fp16 or an fp8 format");
    return float_to_fp8<ElementC>(y / output_scale, Saturation::kSaturate);
  }
}

}  // namespace fp8gemm
