// SPDX-License-Identifier: MIT
// Return-code checks for the benchmarks: a failed CUDA or cuBLASLt call prints itself and exits.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define BENCH_CHECK_CUDA(call)                                                                 \
  do {                                                                                         \
    cudaError_t const e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(e_), __FILE__, \
                   __LINE__);                                                                  \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)
#define BENCH_CHECK_CUBLAS(call)                                                                  \
  do {                                                                                            \
    cublasStatus_t const s_ = (call);                                                             \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s failed: status %d (%s:%d)\n", #call, int(s_), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)
