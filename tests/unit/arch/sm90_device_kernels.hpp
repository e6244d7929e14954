// SPDX-License-Identifier: MIT
/// Kernels that call every sm90 building block (every wgmma N and format pair), for the
/// compile tests: nvcc for sm_90a (the inline PTX must assemble) and sm_90 (traps), clang HIP for
/// gfx942 (empty bodies). Never launched.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/tile/smem_swizzle.hpp"

namespace fp8gemm::test {

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
/// One wgmma chain of each shape and format pair, a kernel each (one N per kernel keeps the
/// register demand of a real kernel: no C7512 serialization lines in the build log).
template <int N, class EA, class EB>
__global__ void __launch_bounds__(128, 1)
    sm90_compile_wgmma_kernel(float* out, std::uint64_t da, std::uint64_t db) {
  using W = arch::Sm90Wgmma64xNx32<N, EA, EB>;
  float d[W::kAccumulators];
  arch::wgmma_fence();
  W::mma(d, da, db, false);
  W::mma(d, arch::Sm90SmemDescriptor{da}.advanced(W::kKStepBytes).bits, db, true);
  arch::wgmma_commit_group();
  arch::wgmma_wait_group<0>();
  arch::wgmma_pin_accumulators(d);
  int const t = static_cast<int>(threadIdx.x);
  FP8GEMM_UNROLL
  for (int i = 0; i < W::kAccumulators; ++i) out[W::acc_row(t, i) * N + W::acc_col(t, i)] = d[i];
}

#define FP8GEMM_TEST_SM90_PAIRS(N)                                                \
  reinterpret_cast<void const*>(&sm90_compile_wgmma_kernel<N, e4m3fn, e4m3fn>),   \
      reinterpret_cast<void const*>(&sm90_compile_wgmma_kernel<N, e4m3fn, e5m2>), \
      reinterpret_cast<void const*>(&sm90_compile_wgmma_kernel<N, e5m2, e4m3fn>), \
      reinterpret_cast<void const*>(&sm90_compile_wgmma_kernel<N, e5m2, e5m2>)
/// Takes every instantiation's address, so that each is compiled.
inline void const* const kSm90CompileWgmmaKernels[] = {
    FP8GEMM_TEST_SM90_PAIRS(8),  FP8GEMM_TEST_SM90_PAIRS(16),  FP8GEMM_TEST_SM90_PAIRS(32),
    FP8GEMM_TEST_SM90_PAIRS(64), FP8GEMM_TEST_SM90_PAIRS(128), FP8GEMM_TEST_SM90_PAIRS(256)};
#undef FP8GEMM_TEST_SM90_PAIRS
#endif

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
    out[threadIdx.x] = static_cast<float>(
        arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(tile)).bits);
  }
}

/// The 2-CTA cluster pieces (TMA multicast, arrivals on the peer's barrier, cluster barriers).
__global__ void __launch_bounds__(128, 1)
    sm90_compile_cluster_kernel(FP8GEMM_TEST_GRID_CONSTANT arch::TmaDescriptor const map,
                                float* out) {
  __shared__ alignas(1024) std::uint8_t tile[2048];
  __shared__ std::uint64_t bar;
  int const rank = arch::cluster_ctarank();
  if (threadIdx.x == 0) {
    arch::Mbarrier::init(&bar, 2);
    arch::fence_mbarrier_init();
  }
  arch::cluster_sync();
  if (threadIdx.x == 0) {
    arch::Mbarrier::arrive_expect_tx(&bar, 2048);
    arch::tma_load_2d_multicast(tile + 1024 * rank, &map, &bar, 0, 8 * rank, 0x3);
  }
  if (threadIdx.x < 2) arch::Mbarrier::arrive_cluster(&bar, static_cast<int>(threadIdx.x));
  arch::Mbarrier::wait(&bar, 0);
  out[threadIdx.x] = static_cast<float>(tile[threadIdx.x]);
  arch::cluster_arrive();
  arch::cluster_wait();
}
#endif

}  // namespace fp8gemm::test
