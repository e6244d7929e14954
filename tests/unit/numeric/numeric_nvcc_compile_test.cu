// SPDX-License-Identifier: MIT
/// nvcc build of the numeric headers: the kernel in numeric_device_kernel.hpp is compiled for the
/// CUDA architectures (not launched: no GPU needed) and its static_asserts hold in both nvcc
/// passes; the host pass's conversions are checked here and, bit for bit against cuda_fp8.h, by the
/// oracle tests compiled into this binary by nvcc (fp8_cuda_oracle_test.cpp).
#include <gtest/gtest.h>

#include "fp8gemm/numeric/numeric.hpp"
#include "numeric_device_kernel.hpp"

namespace fp8gemm {
namespace {

TEST(NumericNvcc, HostPassMatchesKnownCodes) {
  EXPECT_EQ(float_to_fp8<e4m3fn>(1.0f).bits, 0x38);
  EXPECT_EQ(float_to_fp8<e5m2>(-57344.0f).bits, 0xFB);
  EXPECT_EQ(float_to_fp8<e4m3fnuz>(-0.0f).bits, 0x00);
  EXPECT_EQ(float_to_fp8<e5m2fnuz>(1e9f, Saturation::kNonSaturating).bits, 0x80);
  EXPECT_EQ(fp8_to_float(e4m3fn::from_bits(0x7E)), 448.0f);
  EXPECT_EQ(mx_shared_scale<e4m3fn>(448.0f).bits, 127);
  EXPECT_EQ(float_to_bf16(1.0f).bits, 0x3F80);
  EXPECT_EQ(float_to_fp16(1.0f).bits, 0x3C00);
  // The kernel exists (compiled for the device); taking its address needs no GPU.
  EXPECT_NE(reinterpret_cast<void const*>(&test::numeric_round_trip_kernel), nullptr);
}

}  // namespace
}  // namespace fp8gemm
