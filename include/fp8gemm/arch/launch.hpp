// SPDX-License-Identifier: MIT
/// Launching a kernel body (arch layer): a __global__ entry on a GPU (thread-block clusters where
/// the kernel asks for them), the host emulator otherwise.
/// Also the run-time target check: does the device in use execute this Arch's atoms?
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm::arch {

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
/// Kernel parameters that stay in parameter space (a TMA descriptor in Params must): CUDA's
/// __grid_constant__ (sm_70+, CUDA 11.7+); nothing elsewhere.
#if defined(FP8GEMM_BACKEND_CUDA) && defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 7))
#define FP8GEMM_GRID_CONSTANT __grid_constant__
#else
#define FP8GEMM_GRID_CONSTANT
#endif

/// Kernel::kMinBlocksPerSm where the kernel declares one, else 1.
template <class Kernel, class = void>
struct min_blocks_per_sm : std::integral_constant<int, 1> {};
template <class Kernel>
struct min_blocks_per_sm<Kernel, std::void_t<decltype(Kernel::kMinBlocksPerSm)>>
    : std::integral_constant<int, Kernel::kMinBlocksPerSm> {};

/// The one __global__ function: Kernel::run(params, dynamic LDS). NVIDIA: at least
/// kMinBlocksPerSm blocks per SM (a register cap); HIP's second __launch_bounds__ argument means
/// waves per execution unit instead, so AMD gets the thread count only.
#if defined(FP8GEMM_BACKEND_CUDA) || defined(__HIP_PLATFORM_NVIDIA__)
#define FP8GEMM_KERNEL_BOUNDS(Kernel) \
  __launch_bounds__(Kernel::kThreads, min_blocks_per_sm<Kernel>::value)
#else
#define FP8GEMM_KERNEL_BOUNDS(Kernel) __launch_bounds__(Kernel::kThreads)
#endif
template <class Kernel>
__global__ void FP8GEMM_KERNEL_BOUNDS(Kernel)
    kernel_entry(FP8GEMM_GRID_CONSTANT typename Kernel::Params const params) {
  extern __shared__ __align__(16) unsigned char fp8gemm_lds[];
  Kernel::run(params, fp8gemm_lds);
}
#endif

#if defined(FP8GEMM_BACKEND_CUDA) || \
    (defined(FP8GEMM_BACKEND_HIP) && defined(__HIP_PLATFORM_NVIDIA__))
/// Writes 1 when the code the device runs was compiled for sm_90a (wgmma exists), else 0. (A
/// template, so that every translation unit may define it: a header-only library's kernel.)
template <int = 0>
__global__ void sm90a_probe(int* out) {
#if defined(FP8GEMM_ARCH_SM90A)
  *out = 1;
#else
  *out = 0;
#endif
}

/// Does this binary hold sm_90a code for the current device? A build for plain sm_90 (or PTX
/// JIT-compiled for it) compiles the wgmma kernel to a trap. Probed once per process: only a
/// definite answer is kept (a failed probe is reported and retried next time). The probe runs on
/// a private non-blocking stream with the thread's capture mode relaxed, so that a first call
/// while the user captures a CUDA graph neither joins nor breaks the capture.
inline Status sm90a_code_present() {
  static std::atomic<int> known{0};  // 0 not probed yet, 1 present, 2 absent
  auto absent = [] {
    return Status::error(StatusCode::kErrorUnsupported,
                         "this binary has no sm_90a code for the device, so the TMA + WGMMA "
                         "kernel would trap: build with -gencode=arch=compute_90a,code=sm_90a");
  };
  int const k = known.load(std::memory_order_acquire);
  if (k != 0) return k == 1 ? Status::success() : absent();
  struct RelaxedCapture {  // restores the thread's capture mode on every path
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaError_t entered = cudaThreadExchangeStreamCaptureMode(&mode);
    ~RelaxedCapture() {
      if (entered == cudaSuccess) (void)cudaThreadExchangeStreamCaptureMode(&mode);
    }
  } relaxed;
  FP8GEMM_GPU_RETURN_IF_ERROR(relaxed.entered);
  cudaStream_t stream = nullptr;
  FP8GEMM_GPU_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int* flag = nullptr;
  int host = 0;
  cudaError_t e = cudaMalloc(&flag, sizeof(int));
  if (e == cudaSuccess) {
    sm90a_probe<><<<1, 1, 0, stream>>>(flag);
    e = cudaGetLastError();
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    cudaError_t const f = cudaFree(flag);
    if (e == cudaSuccess) e = f;
  }
  cudaError_t const d = cudaStreamDestroy(stream);
  if (e == cudaSuccess) e = d;
  FP8GEMM_GPU_RETURN_IF_ERROR(e);
  known.store(host == 1 ? 1 : 2, std::memory_order_release);
  return host == 1 ? Status::success() : absent();
}
#endif

/// The number of SMs / CUs of the current device (1 in builds without a GPU runtime).
inline Status multiprocessor_count(int* out) {
  *out = 1;
#if defined(FP8GEMM_BACKEND_CUDA)
  int device = 0;
  FP8GEMM_GPU_RETURN_IF_ERROR(cudaGetDevice(&device));
  FP8GEMM_GPU_RETURN_IF_ERROR(cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device));
#elif defined(FP8GEMM_BACKEND_HIP)
  int device = 0;
  FP8GEMM_GPU_RETURN_IF_ERROR(hipGetDevice(&device));
  FP8GEMM_GPU_RETURN_IF_ERROR(
      hipDeviceGetAttribute(out, hipDeviceAttributeMultiprocessorCount, device));
#endif
  return Status::success();
}

/// Checks that the current device runs Arch's instructions; the message says what is missing.
template <class Arch>
Status check_target() {
#if !defined(FP8GEMM_BACKEND_CUDA)
  if constexpr (std::is_same_v<Arch, Sm90a>)
    return Status::error(
        StatusCode::kErrorUnsupported,
        "the TMA + WGMMA kernel (sm90a policies) runs only in CUDA builds (nvcc, "
        "-gencode=arch=compute_90a,code=sm_90a): HIP and the host emulator have no "
        "model of TMA or wgmma; use the portable policy Sm90Default");
#endif
#if defined(FP8GEMM_BACKEND_CUDA) || \
    (defined(FP8GEMM_BACKEND_HIP) && defined(__HIP_PLATFORM_NVIDIA__))
  int major = 0, minor = 0;  // the current device's compute capability
  if constexpr (std::is_same_v<Arch, Sm90> || std::is_same_v<Arch, Sm90a>) {
    int device = 0;
    FP8GEMM_GPU_RETURN_IF_ERROR(cudaGetDevice(&device));
    FP8GEMM_GPU_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    FP8GEMM_GPU_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  }
  if constexpr (std::is_same_v<Arch, Sm90a>) {
    if (major != 9 || minor != 0)
      return Status::error(StatusCode::kErrorUnsupported,
                           "the TMA + WGMMA kernel (sm_90a) needs a compute capability 9.0 GPU "
                           "(H100/H200); device has " +
                               std::to_string(major) + "." + std::to_string(minor) +
                               ": use the portable policy Sm90Default");
    return sm90a_code_present();
  } else if constexpr (!std::is_same_v<Arch, Sm90>) {
    return Status::error(StatusCode::kErrorUnsupported,
                         std::string("policy targets ") + Arch::kName +
                             " (AMD) but this build runs on an NVIDIA GPU; use an Sm90 policy");
  } else {
    if (major * 10 + minor < 89)
      return Status::error(StatusCode::kErrorUnsupported,
                           "fp8 mma.sync needs compute capability 8.9 or newer; device has " +
                               std::to_string(major) + "." + std::to_string(minor));
    return Status::success();
  }
#elif defined(FP8GEMM_BACKEND_HIP)
  hipDeviceProp_t prop;
  int device = 0;
  FP8GEMM_GPU_RETURN_IF_ERROR(hipGetDevice(&device));
  FP8GEMM_GPU_RETURN_IF_ERROR(hipGetDeviceProperties(&prop, device));
  std::string const gcn = prop.gcnArchName;
  if (gcn.rfind(Arch::kName, 0) != 0)
    return Status::error(StatusCode::kErrorUnsupported,
                         std::string("policy targets ") + Arch::kName + " but the device is " +
                             gcn +
                             (Arch::kFnuz ? " (gfx942 computes FNUZ fp8; other targets OCP)"
                                          : " (OCP fp8 policies need gfx950)"));
  return Status::success();
#elif defined(FP8GEMM_EMULATOR)
  return Status::success();  // host emulator: every atom is emulated
#else
  return Status::error(
      StatusCode::kErrorUnsupported,
      std::string("this is a host build without a GPU runtime, and the host emulator is "
                  "not enabled: compile with hipcc/nvcc to run on a GPU, or define "
                  "FP8GEMM_ENABLE_EMULATOR (CMake: link fp8gemm::emulator) to run the ") +
          Arch::kName + " kernel on the CPU emulator");
#endif
}

/// 4-byte LDS banks of the target a kernel runs on (Kernel::Arch), for the emulator's bank model.
template <class Kernel, class = void>
struct kernel_lds_banks : std::integral_constant<int, 32> {};
template <class Kernel>
struct kernel_lds_banks<Kernel, std::void_t<typename Kernel::Arch>>
    : std::integral_constant<int, Kernel::Arch::kLdsBanks> {};

/// Zeroes `bytes` bytes of device memory (host memory under the emulator), ordered on `stream`.
inline Status zero_bytes(void* ptr, std::size_t bytes, gpuStream_t stream) {
#if defined(FP8GEMM_BACKEND_CUDA)
  return gpu_status(cudaMemsetAsync(ptr, 0, bytes, stream), "cudaMemsetAsync");
#elif defined(FP8GEMM_BACKEND_HIP)
  return gpu_status(hipMemsetAsync(ptr, 0, bytes, stream), "hipMemsetAsync");
#else
  (void)stream;
  std::memset(ptr, 0, bytes);  // host memory (emulator); a plain host build never gets here
  return Status::success();
#endif
}

/// Copies `bytes` bytes of device memory (host memory under the emulator) to the host, after the
/// work queued on `stream` before it, and waits for the copy.
inline Status copy_to_host(void* dst, void const* src, std::size_t bytes, gpuStream_t stream) {
#if defined(FP8GEMM_BACKEND_CUDA)
  FP8GEMM_GPU_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  return gpu_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
#elif defined(FP8GEMM_BACKEND_HIP)
  FP8GEMM_GPU_RETURN_IF_ERROR(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, stream));
  return gpu_status(hipStreamSynchronize(stream), "hipStreamSynchronize");
#else
  (void)stream;
  std::memcpy(dst, src, bytes);
  return Status::success();
#endif
}

/// Runs Kernel::run on a grid of grid_x x grid_y workgroups of Kernel::kThreads threads.
/// Dynamic LDS a launch may use without opting in: 48 KiB on NVIDIA (CUDA, or HIP on CUDA), 64 KiB
/// on AMD. Beyond it the kernel's max dynamic shared memory attribute must be raised first.
#if defined(FP8GEMM_BACKEND_CUDA) || defined(__HIP_PLATFORM_NVIDIA__)
inline constexpr std::size_t kDefaultDynamicLds = 48 * 1024;
#else
inline constexpr std::size_t kDefaultDynamicLds = 64 * 1024;
#endif

/// Kernel::kClusterSize where the kernel declares one (CTAs per cluster along x), else 1.
template <class Kernel, class = void>
struct kernel_cluster_size : std::integral_constant<int, 1> {};
template <class Kernel>
struct kernel_cluster_size<Kernel, std::void_t<decltype(Kernel::kClusterSize)>>
    : std::integral_constant<int, Kernel::kClusterSize> {};

/// Kernel::kProgrammaticLaunch where the kernel declares it, else false: the kernel calls
/// grid_dependency_wait() before its first global memory access, so it may be launched with
/// programmatic stream serialization (its CTAs start while the stream's previous kernel drains;
/// CUDA builds on sm_90). FP8GEMM_DISABLE_PROGRAMMATIC_LAUNCH turns it off (A/B measurements).
template <class Kernel, class = void>
struct kernel_programmatic_launch : std::false_type {};
template <class Kernel>
struct kernel_programmatic_launch<Kernel, std::void_t<decltype(Kernel::kProgrammaticLaunch)>>
    : std::bool_constant<Kernel::kProgrammaticLaunch> {};
#if defined(FP8GEMM_DISABLE_PROGRAMMATIC_LAUNCH)
inline constexpr bool kProgrammaticLaunchEnabled = false;
#else
inline constexpr bool kProgrammaticLaunchEnabled = true;
#endif

#if defined(FP8GEMM_BACKEND_CUDA)
/// The launch configuration of cudaLaunchKernelEx: grid, block, Kernel::kSharedBytes of dynamic
/// shared memory; the cluster-dimension attribute {kernel_cluster_size, 1, 1} when clusters are
/// > 1; programmatic stream serialization when the kernel allows it (kernel_programmatic_launch).
template <class Kernel>
struct ExtendedLaunch {
  cudaLaunchAttribute attribute[2] = {};
  cudaLaunchConfig_t config = {};
  ExtendedLaunch(int grid_x, int grid_y, cudaStream_t stream) {
    config.gridDim = dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y), 1);
    config.blockDim = dim3(Kernel::kThreads, 1, 1);
    config.dynamicSmemBytes = static_cast<std::size_t>(Kernel::kSharedBytes);
    config.stream = stream;
    unsigned n = 0;
    if (kernel_cluster_size<Kernel>::value > 1) {
      attribute[n].id = cudaLaunchAttributeClusterDimension;
      attribute[n].val.clusterDim.x = kernel_cluster_size<Kernel>::value;
      attribute[n].val.clusterDim.y = 1;
      attribute[n].val.clusterDim.z = 1;
      ++n;
    }
    if (kernel_programmatic_launch<Kernel>::value && kProgrammaticLaunchEnabled) {
      attribute[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attribute[n].val.programmaticStreamSerializationAllowed = 1;
      ++n;
    }
    config.attrs = attribute;
    config.numAttrs = n;
  }
  ExtendedLaunch(ExtendedLaunch const&) = delete;  // config.attrs points into this object
  ExtendedLaunch& operator=(ExtendedLaunch const&) = delete;
};
#endif

/// How many clusters of Kernel (kernel_cluster_size CTAs, its shared memory each) the current
/// device holds at once (cudaOccupancyMaxActiveClusters): a persistent grid of more clusters
/// would run the extra ones after the others, a whole second wave. Builds without the CUDA
/// runtime: 1.
template <class Kernel>
Status max_active_clusters(int* out) {
  *out = 1;
#if defined(FP8GEMM_BACKEND_CUDA)
  std::size_t const lds = static_cast<std::size_t>(Kernel::kSharedBytes);
  if (lds > kDefaultDynamicLds)
    FP8GEMM_GPU_RETURN_IF_ERROR(cudaFuncSetAttribute(
        kernel_entry<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(lds)));
  ExtendedLaunch<Kernel> const cl(kernel_cluster_size<Kernel>::value, 1, nullptr);
  FP8GEMM_GPU_RETURN_IF_ERROR(
      cudaOccupancyMaxActiveClusters(out, kernel_entry<Kernel>, &cl.config));
#endif
  return Status::success();
}

template <class Kernel>
Status launch(int grid_x, int grid_y, typename Kernel::Params const& params, gpuStream_t stream) {
  std::size_t const lds = static_cast<std::size_t>(Kernel::kSharedBytes);
  constexpr int kCluster = kernel_cluster_size<Kernel>::value;
#if defined(FP8GEMM_BACKEND_CUDA)
  if (lds > kDefaultDynamicLds)
    FP8GEMM_GPU_RETURN_IF_ERROR(cudaFuncSetAttribute(
        kernel_entry<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(lds)));
  if constexpr (kCluster > 1 || kernel_programmatic_launch<Kernel>::value) {
    // Clusters of kCluster CTAs along x and/or programmatic stream serialization
    // (cudaLaunchKernelEx with ExtendedLaunch's attributes); the grid must be a whole number of
    // clusters.
    if (grid_x % kCluster != 0)
      return Status::error(StatusCode::kErrorInvalidArgument,
                           "cluster launch: grid.x (" + std::to_string(grid_x) +
                               ") must be a multiple of the cluster size " +
                               std::to_string(kCluster));
    ExtendedLaunch<Kernel> const cl(grid_x, grid_y, stream);
    FP8GEMM_GPU_RETURN_IF_ERROR(cudaLaunchKernelEx(&cl.config, kernel_entry<Kernel>, params));
    return gpu_status(cudaGetLastError(), "kernel launch (cudaLaunchKernelEx)");
  } else {
    kernel_entry<Kernel><<<dim3(grid_x, grid_y), Kernel::kThreads, lds, stream>>>(params);
    return gpu_status(cudaGetLastError(), "kernel launch");
  }
#elif defined(FP8GEMM_BACKEND_HIP)
  if constexpr (kCluster > 1)
    return Status::error(StatusCode::kErrorUnsupported,
                         "thread-block clusters (TMA multicast policies) need a CUDA build");
  if (lds > kDefaultDynamicLds)
    FP8GEMM_GPU_RETURN_IF_ERROR(
        hipFuncSetAttribute(reinterpret_cast<void const*>(&kernel_entry<Kernel>),
                            hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(lds)));
  kernel_entry<Kernel><<<dim3(grid_x, grid_y), Kernel::kThreads, lds, stream>>>(params);
  return gpu_status(hipGetLastError(), "kernel launch");
#elif defined(FP8GEMM_EMULATOR)
  (void)stream;
  if constexpr (kCluster > 1)
    return Status::error(StatusCode::kErrorUnsupported,
                         "thread-block clusters (TMA multicast policies) need a CUDA build: the "
                         "host emulator has no clusters");
  emu::LaunchConfig cfg;
  cfg.grid = emu::Dim3{grid_x, grid_y, 1};
  cfg.block_threads = Kernel::kThreads;
  cfg.wave_size = Kernel::kWaveSize;
  cfg.shared_bytes = lds;
  cfg.lds_banks = kernel_lds_banks<Kernel>::value;
  try {
    emu::launch(cfg, [&params] { Kernel::run(params, emu::shared_memory()); });
  } catch (std::exception const& e) {
    return Status::error(StatusCode::kErrorGpuRuntime, std::string("host emulator: ") + e.what());
  }
  return Status::success();
#else
  (void)grid_x, (void)grid_y, (void)params, (void)stream, (void)lds, (void)kCluster;
  return check_target<typename Kernel::Arch>();  // refuses: no GPU runtime, no emulator
#endif
}

}  // namespace fp8gemm::arch
