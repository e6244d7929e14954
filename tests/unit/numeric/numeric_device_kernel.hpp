// SPDX-License-Identifier: MIT
/// Test helper: a kernel that instantiates every numeric/ conversion in device code, so the nvcc
/// and clang-HIP device passes compile the headers (nothing launches it); and compile-time checks
/// of the constexpr codec, evaluated by every pass (host and device) of every compiler that
/// includes this header.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

/// Every code of T that is not a NaN decodes and encodes back to itself (non-saturating).
template <class T>
FP8GEMM_HOST_DEVICE constexpr bool every_code_round_trips() {
  using Traits = FormatTraits<T>;
  for (std::uint32_t code = 0; code < 256; ++code) {
    std::uint32_t const f = detail::decode_bits<Traits>(code);
    if ((f & 0x7FFFFFFFu) > 0x7F800000u) continue;  // a NaN code
    if (detail::encode_bits<Traits>(f, Saturation::kNonSaturating, false, 0u) != code) return false;
  }
  return true;
}
static_assert(every_code_round_trips<e4m3fn>() && every_code_round_trips<e5m2>() &&
              every_code_round_trips<e4m3fnuz>() && every_code_round_trips<e5m2fnuz>());

/// Round to nearest even at the overflow and subnormal boundaries (float bit patterns in).
template <class T>
FP8GEMM_HOST_DEVICE constexpr std::uint32_t rne(std::uint32_t x) {
  return detail::encode_bits<FormatTraits<T>>(x, Saturation::kNonSaturating, false, 0u);
}
static_assert(rne<e4m3fn>(0x3F800000u) == 0x38);  // 1.0
static_assert(rne<e4m3fn>(0x43E80000u) == 0x7E);  // 464 = 448 + ulp/2: the tie stays at 448
static_assert(rne<e5m2>(0x47700000u) == 0x7C);    // 61440 = 57344 + ulp/2: the tie overflows to Inf
static_assert(rne<e4m3fnuz>(0x43780000u) == 0x80);  // 248 = 240 + ulp/2: overflow is NaN (FNUZ)
static_assert(rne<e4m3fn>(0x3A800000u) == 0x00);    // 2^-10, half the min subnormal: to 0 (even)
static_assert(rne<e4m3fn>(0x3B400000u) == 0x02);    // 3 * 2^-10: to 2 * 2^-9 (even)
static_assert(rne<e4m3fn>(0x3C780000u) == 0x08);    // 0x1.fp-7: subnormal carries into 2^-6
static_assert(detail::decode_bits<FormatTraits<e5m2fnuz>>(0x01) == 0x37000000u);  // 2^-17
static_assert(detail::mx_shared_scale_bits<8>(0x43E00000u) == 127);  // e4m3fn amax 448: 2^0

/// out[i] = sum of round trips of in[i] through every format; codes[i] = xor of all codes.
FP8GEMM_GLOBAL void numeric_round_trip_kernel(float const* in, float* out, std::uint8_t* codes,
                                              std::uint32_t seed) {
  __shared__ e4m3fn staged[64];  // the types must be usable in shared memory (trivial ctor)
  int const i = static_cast<int>(threadIdx.x);
  float const x = in[i];
  staged[i] = e4m3fn(x);
  __syncthreads();  // waits for: staged[] written by all threads
  e5m2 const b = float_to_fp8<e5m2>(x, Saturation::kNonSaturating);
  e4m3fnuz const c = float_to_fp8_stochastic<e4m3fnuz>(x, seed * 2654435761u + i);
  e5m2fnuz const d = float_to_fp8<e5m2fnuz>(x);
  e8m0 const s = mx_shared_scale<e4m3fn>(x);
  codes[i] = static_cast<std::uint8_t>(staged[i ^ 1].bits ^ b.bits ^ c.bits ^ d.bits ^ s.bits ^
                                       float_to_fp8<e8m0>(x).bits);
  out[i] = fp8_to_float(staged[i]) + static_cast<float>(b) + c.to_float() + fp8_to_float(d) +
           s.to_float() + e8m0::from_exponent(i - 32).to_float() + bf16_to_float(float_to_bf16(x)) +
           fp16_to_float(float_to_fp16(x)) + static_cast<float>(bf16(x)) + fp16(x).to_float();
}

}  // namespace fp8gemm::test
