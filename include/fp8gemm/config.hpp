// SPDX-License-Identifier: MIT
/// The one place that picks the GPU runtime header and the target: host/device macros, stream type,
/// error checking, and the arch predicates the rest of the library tests (only here and in arch/).
#pragma once

// ---- runtime header --------------------------------------------------------------------------
// HIP (AMD, or HIP on NVIDIA) when compiled as HIP; CUDA when nvcc compiles without HIP; otherwise
// a plain host build (the numerics, the quantizers, the reference and the CDNA host emulator).
#if defined(__HIP__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || \
    defined(__HIP_PLATFORM_NVIDIA__)
#include <hip/hip_runtime.h>
#define FP8GEMM_BACKEND_HIP 1
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define FP8GEMM_BACKEND_CUDA 1
#else
#define FP8GEMM_BACKEND_HOST 1
#endif

// FP8GEMM_EMULATOR: a host build that runs the kernels on the CPU emulator (arch/emu: fibers,
// POSIX stacks, std::thread). Opt-in: define FP8GEMM_ENABLE_EMULATOR (CMake: link
// fp8gemm::emulator). A plain host build gets the numerics, the quantizers and Gemm's checks, and
// Gemm::run refuses to launch, saying so.
#if defined(FP8GEMM_BACKEND_HOST) && defined(FP8GEMM_ENABLE_EMULATOR)
#define FP8GEMM_EMULATOR 1
#endif

#if defined(FP8GEMM_BACKEND_HIP) || defined(FP8GEMM_BACKEND_CUDA)
#define FP8GEMM_HAS_GPU_RUNTIME 1
#define FP8GEMM_HOST_DEVICE __host__ __device__ __forceinline__
#define FP8GEMM_DEVICE __device__ __forceinline__
#define FP8GEMM_GLOBAL __global__
#else
#define FP8GEMM_HOST_DEVICE inline
#define FP8GEMM_DEVICE inline
#define FP8GEMM_GLOBAL
#endif

/// Asks a GPU compiler to unroll the next loop; host compilers unroll on their own judgement.
#if defined(__CUDACC__) || defined(__HIP__) || defined(__clang__)
#define FP8GEMM_UNROLL _Pragma("unroll")
#else
#define FP8GEMM_UNROLL
#endif

// ---- which pass is being compiled -----------------------------------------------------------
// FP8GEMM_DEVICE_PASS: this is a device-code compilation pass (nvcc's __CUDA_ARCH__ pass, or
// clang's HIP device pass). Host passes and host-only builds leave it undefined.
#if defined(__CUDA_ARCH__) || (defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__)
#define FP8GEMM_DEVICE_PASS 1
#endif

// FP8GEMM_DEVICE_TRAP(): ends the kernel with an error. Stands in for an atom's instruction in the
// device pass of a target that lacks it, so that a fat binary including such a target still
// compiles; Gemm::can_implement refuses to launch there. nvcc's device code has __trap() (its
// __builtin_trap is host-only); clang (HIP) has __builtin_trap.
#if defined(__CUDA_ARCH__)
#define FP8GEMM_DEVICE_TRAP() __trap()
#else
#define FP8GEMM_DEVICE_TRAP() __builtin_trap()
#endif

// Target predicates, true only in the device pass of that target.
#if defined(__gfx942__)
#define FP8GEMM_ARCH_GFX942 1
#endif
#if defined(__gfx950__)
#define FP8GEMM_ARCH_GFX950 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define FP8GEMM_ARCH_SM80_PLUS 1  // cp.async (global -> shared without registers)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define FP8GEMM_ARCH_SM89_PLUS 1  // mma.sync with e4m3/e5m2 operands (sm_89, sm_90, ...)
#endif

// FP8GEMM_ARCH_SM90A: the device pass of an sm_90a compile (nvcc -gencode=arch=compute_90a,
// code=sm_90a). wgmma and setmaxnreg exist only there ("-arch=sm_90" rejects them); TMA and
// mbarrier transaction counts would run on plain sm_90 too, but the WGMMA path needs sm_90a
// anyway, so every arch/nvidia/sm90_*.hpp primitive keys on this one predicate.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FP8GEMM_ARCH_SM90A 1
#endif

// clang 22 no longer predefines __AMDGCN_WAVEFRONT_SIZE, which ROCm 6.x headers still read.
#if defined(__HIP_PLATFORM_AMD__) && !defined(__AMDGCN_WAVEFRONT_SIZE)
#define __AMDGCN_WAVEFRONT_SIZE 64
#endif

namespace fp8gemm {

#if defined(FP8GEMM_BACKEND_HIP)
using gpuStream_t = hipStream_t;
using gpuError_t = hipError_t;
inline constexpr gpuError_t kGpuSuccess = hipSuccess;
inline char const* gpu_error_string(gpuError_t e) {
  return hipGetErrorString(e);
}
inline gpuError_t gpu_last_error() {
  return hipGetLastError();
}
#elif defined(FP8GEMM_BACKEND_CUDA)
using gpuStream_t = cudaStream_t;
using gpuError_t = cudaError_t;
inline constexpr gpuError_t kGpuSuccess = cudaSuccess;
inline char const* gpu_error_string(gpuError_t e) {
  return cudaGetErrorString(e);
}
inline gpuError_t gpu_last_error() {
  return cudaGetLastError();
}
#else
using gpuStream_t = void*;  // host-only build: no GPU streams; the emulator ignores it
#endif

}  // namespace fp8gemm
