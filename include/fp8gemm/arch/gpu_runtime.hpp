// SPDX-License-Identifier: MIT
/// What plain GPU code outside arch/ needs from the runtime (arch layer): device memory, async
/// memset and copy to the host, stream synchronization, the current device, plain kernel launches,
/// one name each for HIP and CUDA; and the integer atomics of simple kernels. GPU builds only.
#pragma once

#include <cstddef>

#include "fp8gemm/config.hpp"
#include "fp8gemm/status.hpp"

#if defined(FP8GEMM_HAS_GPU_RUNTIME)

namespace fp8gemm::arch {

// The two runtimes' calls differ only in their prefix: hipMalloc / cudaMalloc, ...
#if defined(FP8GEMM_BACKEND_HIP)
#define FP8GEMM_RUNTIME_CALL(name) hip##name
#else
#define FP8GEMM_RUNTIME_CALL(name) cuda##name
#endif

inline gpuError_t device_malloc(void** p, std::size_t bytes) {
  return FP8GEMM_RUNTIME_CALL(Malloc)(p, bytes);
}
inline gpuError_t device_free(void* p) {
  return FP8GEMM_RUNTIME_CALL(Free)(p);
}
inline gpuError_t memset_async(void* p, int value, std::size_t bytes, gpuStream_t s) {
  return FP8GEMM_RUNTIME_CALL(MemsetAsync)(p, value, bytes, s);
}
inline gpuError_t copy_to_host_async(void* dst, void const* src, std::size_t bytes, gpuStream_t s) {
  return FP8GEMM_RUNTIME_CALL(MemcpyAsync)(dst, src, bytes,
                                           FP8GEMM_RUNTIME_CALL(MemcpyDeviceToHost), s);
}
inline gpuError_t stream_synchronize(gpuStream_t s) {
  return FP8GEMM_RUNTIME_CALL(StreamSynchronize)(s);
}
inline gpuError_t current_device(int* device) {
  return FP8GEMM_RUNTIME_CALL(GetDevice)(device);
}

#undef FP8GEMM_RUNTIME_CALL

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
