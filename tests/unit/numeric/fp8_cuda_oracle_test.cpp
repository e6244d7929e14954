// SPDX-License-Identifier: MIT
/// Oracle 1: numeric/ conversions vs CUDA's host conversions in cuda_fp8.h (and cuda_fp16.h /
/// cuda_bf16.h), bit for bit. Built with the host C++ compiler; needs the CUDA headers, no GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fp8_oracle_check.hpp"
#include "fp8_sweep.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm {
namespace {

__nv_saturation_t to_nv(Saturation s) {
  return s == Saturation::kSaturate ? __NV_SATFINITE : __NV_NOSAT;
}

TEST(Fp8CudaOracle, E4m3fnEncodeMatchesBitForBit) {
  test::expect_matches_oracle<e4m3fn>(test::fp8_sweep(), [](float x, Saturation s) {
    return static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(x, to_nv(s), __NV_E4M3));
  });
}

TEST(Fp8CudaOracle, E5m2EncodeMatchesBitForBit) {
  test::expect_matches_oracle<e5m2>(test::fp8_sweep(), [](float x, Saturation s) {
    return static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(x, to_nv(s), __NV_E5M2));
  });
}

/// CUDA decodes fp8 to half (exact for e4m3/e5m2).
template <__nv_fp8_interpretation_t kInterp>
std::uint16_t cuda_half_bits(std::uint8_t code) {
  return __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), kInterp).x;
}

TEST(Fp8CudaOracle, DecodeMatches) {
  test::expect_decode_matches<e4m3fn>(cuda_half_bits<__NV_E4M3>);
  test::expect_decode_matches<e5m2>(cuda_half_bits<__NV_E5M2>);
}

/// e8m0 decode vs __nv_cvt_e8m0_to_bf16raw (2^-127 is a bf16 subnormal, still exact).
TEST(Fp8CudaOracle, E8m0DecodeMatches) {
  for (int c = 0; c < 256; ++c) {
    __nv_bfloat16_raw const b = __nv_cvt_e8m0_to_bf16raw(static_cast<__nv_fp8_storage_t>(c));
    float const want = test::bits_to_float(static_cast<std::uint32_t>(b.x) << 16);
    float const got = e8m0::from_bits(static_cast<std::uint8_t>(c)).to_float();
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << c;
    } else {
      EXPECT_EQ(got, want) << c;
    }
  }
}

/// mx_shared_scale<T>(amax) = 2^(floor(log2 amax) - emax) = CUDA's round-toward-zero e8m0 of
/// amax * 2^-emax (an exact power-of-two scaling while amax * 2^-emax stays a float normal).
TEST(Fp8CudaOracle, MxSharedScaleMatchesRoundTowardZeroE8m0) {
  std::mt19937 rng(11);
  for (int i = 0; i < 200000; ++i) {
    float const amax = test::bits_to_float((rng() % (230u << 23)) + (20u << 23));
    auto const rz = [&](int emax) {
      return static_cast<std::uint8_t>(
          __nv_cvt_float_to_e8m0(std::ldexp(amax, -emax), __NV_SATFINITE, cudaRoundZero));
    };
    ASSERT_EQ(mx_shared_scale<e4m3fn>(amax).bits, rz(8)) << amax;
    ASSERT_EQ(mx_shared_scale<e5m2>(amax).bits, rz(15)) << amax;
  }
}

/// bf16 / fp16 encode vs __float2bfloat16_rn / __float2half_rn host paths, bit for bit for
/// non-NaN inputs (NaN: both must give a NaN).
TEST(HalfCudaOracle, EncodeMatchesBitForBit) {
  long mismatches = 0;
  for (float x : test::fp8_sweep()) {
    __half_raw const h = __half_raw(__float2half_rn(x));
    __nv_bfloat16_raw const b = __nv_bfloat16_raw(__float2bfloat16_rn(x));
    std::uint16_t const ours_h = float_to_fp16(x).bits, ours_b = float_to_bf16(x).bits;
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(fp16::from_bits(h.x))));
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(x))));
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(x))));
      continue;
    }
    if (ours_h != h.x || ours_b != b.x) {
      if (++mismatches <= 16) {
        ADD_FAILURE() << "x=" << x << std::hex << " fp16 ours=" << ours_h << " cuda=" << h.x
                      << " bf16 ours=" << ours_b << " cuda=" << b.x;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace fp8gemm
