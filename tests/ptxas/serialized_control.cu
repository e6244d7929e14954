// SPDX-License-Identifier: MIT
// Negative control for ptxas_check.cmake: a printf inside a wgmma kernel makes ptxas serialize
// the wgmma pipeline (an info line "... wgmma.mma_async instructions are serialized ..."), which
// the check must catch; the test passes only if the check fails on this file.
#include <cstdio>

#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"

__global__ void serialized(std::uint64_t da, std::uint64_t db, float* out) {
  using Atom = fp8gemm::arch::Sm90Wgmma64xNx32<64, fp8gemm::e4m3fn, fp8gemm::e4m3fn>;
  float acc[Atom::kAccumulators];
  fp8gemm::arch::wgmma_fence();
  Atom::mma(acc, da, db, false);
  fp8gemm::arch::wgmma_commit_group();
  if (threadIdx.x == 0) printf("%f\n", acc[0]);
  fp8gemm::arch::wgmma_wait_group<0>();
  for (int i = 0; i < Atom::kAccumulators; ++i) out[i * 128 + threadIdx.x] = acc[i];
}
