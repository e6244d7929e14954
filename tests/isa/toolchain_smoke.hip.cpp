// SPDX-License-Identifier: MIT
// Toolchain smoke test for the ISA checks: one FP8 MFMA per target, compiled device-only to
// assembly. tests/isa/CMakeLists.txt checks the mnemonics and that no kernel uses scratch.
#include <hip/hip_runtime.h>

typedef float fp8gemm_smoke_f32x4 __attribute__((ext_vector_type(4)));
typedef int fp8gemm_smoke_i32x8 __attribute__((ext_vector_type(8)));

#if defined(__gfx950__)
__device__ __forceinline__ fp8gemm_smoke_i32x8 load_i32x8(int const* p) {
  fp8gemm_smoke_i32x8 v;
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = p[i];
  return v;
}

// Constant-zero scales: the compiler folds this to the unscaled v_mfma_f32_16x16x128_f8f6f4.
__global__ void smoke_mfma_f8f6f4_zero_scale(int const* a, int const* b, fp8gemm_smoke_f32x4* c) {
  int const t = threadIdx.x;
  c[t] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(load_i32x8(a + 8 * t),
                                                          load_i32x8(b + 8 * t), c[t],
                                                          /*Atype e4m3*/ 0, /*Btype e4m3*/ 0,
                                                          /*opsel_a*/ 0, /*scale_a*/ 0,
                                                          /*opsel_b*/ 0, /*scale_b*/ 0);
}

// Runtime E8M0 scales: must stay v_mfma_scale_f32_16x16x128_f8f6f4.
__global__ void smoke_mfma_f8f6f4_scaled(int const* a, int const* b, int const* sa, int const* sb,
                                         fp8gemm_smoke_f32x4* c) {
  int const t = threadIdx.x;
  c[t] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(
      load_i32x8(a + 8 * t), load_i32x8(b + 8 * t), c[t], 0, 0, 0, sa[t], 0, sb[t]);
}
#else
// gfx942 (CDNA3): 16x16x32 e4m3 x e4m3, 8 fp8 per lane in a 64-bit register pair.
__global__ void smoke_mfma_16x16x32_fp8(long const* a, long const* b, fp8gemm_smoke_f32x4* c) {
  int const t = threadIdx.x;
  c[t] = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a[t], b[t], c[t], /*cbsz*/ 0, /*abid*/ 0,
                                                    /*blgp*/ 0);
}
#endif
