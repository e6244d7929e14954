// SPDX-License-Identifier: MIT
/// What plain GPU code outside arch/ needs from the runtime (arch layer): device memory, async
/// memset and copy to the host, stream synchronization and plain kernel launches, one name each
/// for HIP and CUDA; and the integer atomics of simple kernels. GPU builds only.
#pragma once

#include <cstddef>

#include "fp8gemm/config.hpp"
#include "fp8gemm/status.hpp"

#if defined(FP8GEMM_HAS_GPU_RUNTIME)

namespace fp8gemm::arch {

#if defined(FP8GEMM_BACKEND_HIP)
inline gpuError_t device_malloc(void** p, std::size_t bytes) {
  return hipMalloc(p, bytes);
}
inline gpuError_t device_free(void* p) {
  return hipFree(p);
}
inline gpuError_t memset_async(void* p, int value, std::size_t bytes, gpuStream_t s) {
  return hipMemsetAsync(p, value, bytes, s);
}
inline gpuError_t copy_to_host_async(void* dst, void const* src, std::size_t bytes, gpuStream_t s) {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, s);
}
inline gpuError_t stream_synchronize(gpuStream_t s) {
  return hipStreamSynchronize(s);
}
#else
inline gpuError_t device_malloc(void** p, std::size_t bytes) {
  return cudaMalloc(p, bytes);
}
inline gpuError_t device_free(void* p) {
  return cudaFree(p);
}
inline gpuError_t memset_async(void* p, int value, std::size_t bytes, gpuStream_t s) {
  return cudaMemsetAsync(p, value, bytes, s);
}
inline gpuError_t copy_to_host_async(void* dst, void const* src, std::size_t bytes, gpuStream_t s) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s);
}
inline gpuError_t stream_synchronize(gpuStream_t s) {
  return cudaStreamSynchronize(s);
}
#endif

/// A plain launch: grid_x x grid_y workgroups of `threads` threads, no dynamic LDS.
struct LaunchShape {
  unsigned int grid_x = 1, grid_y = 1;
  int threads = 1;
};

/// kernel<<<shape, stream>>>(args...); the Status names `what` when the launch fails.
template <class... Params, class... Args>
Status launch_kernel(void (*kernel)(Params...), LaunchShape shape, gpuStream_t stream,
                     char const* what, Args const&... args) {
  kernel<<<dim3(shape.grid_x, shape.grid_y), shape.threads, 0, stream>>>(args...);
  return gpu_status(gpu_last_error(), what);
}

/// *addr = max(*addr, value), atomically.
FP8GEMM_DEVICE void atomic_max(unsigned int* addr, unsigned int value) {
  atomicMax(addr, value);
}

/// *addr = min(*addr, value), atomically.
FP8GEMM_DEVICE void atomic_min(unsigned long long* addr, unsigned long long value) {
  atomicMin(addr, value);
}

}  // namespace fp8gemm::arch

#endif  // FP8GEMM_HAS_GPU_RUNTIME
