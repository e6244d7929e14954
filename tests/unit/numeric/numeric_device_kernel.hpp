// SPDX-License-Identifier: MIT
/// Test helper: a kernel that instantiates every numeric/ conversion in device code, so the nvcc
/// and clang-HIP device passes compile the headers (nothing launches it).
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

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
