// SPDX-License-Identifier: MIT
/// A kernel that calls every sm90 building block once (every wgmma N and format pair), for the
/// compile tests: nvcc for sm_90a (the inline PTX must assemble) and sm_90 (traps), clang HIP for
/// gfx942 (empty bodies). Never launched.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/tile/smem_swizzle.hpp"

namespace fp8gemm::test {

template <int N, class EA, class EB>
FP8GEMM_DEVICE void sm90_compile_wgmma(float* out, std::uint64_t da, std::uint64_t db) {
  using W = arch::Sm90Wgmma64xNx32<N, EA, EB>;
  float d[W::kAccumulators];
  arch::wgmma_fence();
  W::mma(d, da, db, false);
  W::mma(d, arch::Sm90SmemDescriptor{da}.advanced(W::kKStepBytes).bits, db, true);
  arch::wgmma_commit_group();
  arch::wgmma_wait_group<0>();
  arch::wgmma_pin_accumulators(d);
  for (int i = 0; i < W::kAccumulators; ++i) out[W::acc_row(0, i) * N + W::acc_col(0, i)] = d[i];
}

template <int N>
FP8GEMM_DEVICE void sm90_compile_wgmma_pairs(float* out, std::uint64_t da, std::uint64_t db) {
  sm90_compile_wgmma<N, e4m3fn, e4m3fn>(out, da, db);
  sm90_compile_wgmma<N, e4m3fn, e5m2>(out, da, db);
  sm90_compile_wgmma<N, e5m2, e4m3fn>(out, da, db);
  sm90_compile_wgmma<N, e5m2, e5m2>(out, da, db);
}

#if defined(FP8GEMM_BACKEND_CUDA)
#define FP8GEMM_TEST_GRID_CONSTANT __grid_constant__
#else
#define FP8GEMM_TEST_GRID_CONSTANT  // HIP has no __grid_constant__; the body is empty there anyway
#endif

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
__global__ void __launch_bounds__(256, 1)
    sm90_compile_kernel(FP8GEMM_TEST_GRID_CONSTANT arch::TmaDescriptor const map, float* out) {
  __shared__ alignas(1024) std::uint8_t tile[2048];
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) {
    arch::Mbarrier::init(&bar, 1);
    arch::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    arch::setmaxnreg_dec<40>();
    if (arch::elect_one_sync() && threadIdx.x < 32) {
      arch::tma_prefetch_descriptor(&map);
      arch::Mbarrier::arrive_expect_tx(&bar, 1024);
      arch::tma_load_2d(tile, &map, &bar, 0, 0);
    }
    arch::Mbarrier::wait(&bar, 0);
    arch::fence_proxy_async_shared();
    arch::named_barrier_sync(1, 128);
    if (threadIdx.x == 0) {
      arch::tma_store_2d(&map, tile + Swizzle128B::offset(1, 0), 0, 0);
      arch::tma_store_commit_group();
      arch::tma_store_wait_read<0>();
      arch::tma_store_wait<0>();
      arch::Mbarrier::arrive(&bar);
      out[1] = arch::Mbarrier::try_wait(&bar, 1) ? 1.0f : 0.0f;
    }
  } else {
    arch::setmaxnreg_inc<232>();
    std::uint64_t const da = arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(tile)).bits;
    sm90_compile_wgmma_pairs<64>(out, da, da);
    sm90_compile_wgmma_pairs<128>(out, da, da);
    sm90_compile_wgmma_pairs<256>(out, da, da);
  }
}
#endif

}  // namespace fp8gemm::test
