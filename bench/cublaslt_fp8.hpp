// SPDX-License-Identifier: MIT
// cuBLASLt FP8 setup shared by the benchmark and the tuning tool: our row-major C[M, N] =
// A[M, K] B[N, K]^T is cuBLAS's column-major D^T = B A^T ("TN"), so cuBLAS "A" is our B and its
// scales are ours swapped.
#pragma once

#include <cublasLt.h>

#include <cstddef>

#include "bench_check.hpp"

/// The matmul descriptor: FP32 compute, TN, our scale pointers, and (when not scalar) the scale
/// modes of our A and our B.
inline cublasLtMatmulDesc_t fp8_tn_desc(
    float const* scale_a, float const* scale_b,
    cublasLtMatmulMatrixScale_t mode_a = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
    cublasLtMatmulMatrixScale_t mode_b = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) {
  cublasLtMatmulDesc_t desc;
  BENCH_CHECK_CUBLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t const ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  BENCH_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  BENCH_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  float const* lt_a = scale_b;  // cuBLAS "A" is our B
  float const* lt_b = scale_a;
  BENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                    &lt_a, sizeof lt_a));
  BENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                    &lt_b, sizeof lt_b));
  if (mode_a != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F ||
      mode_b != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) {
    BENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                                      &mode_b, sizeof mode_b));
    BENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                      &mode_a, sizeof mode_a));
  }
  return desc;
}

/// Up to 8 heuristic algorithms for desc on (la, lb, lc) within ws_bytes of workspace; the number
/// found (0 when the heuristic refuses).
inline int fp8_heuristics(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                          cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                          cublasLtMatrixLayout_t lc, std::size_t ws_bytes,
                          cublasLtMatmulHeuristicResult_t (&heur)[8]) {
  cublasLtMatmulPreference_t pref;
  BENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  BENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
  int found = 0;
  cublasStatus_t const s =
      cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 8, heur, &found);
  BENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceDestroy(pref));
  return s == CUBLAS_STATUS_SUCCESS ? found : 0;
}
