// SPDX-License-Identifier: MIT
/// One-time layout conversion of an fp8 operand (quant layer): B stored [K, N] (LayoutB::kKN)
/// into [N, K] (LayoutB::kNK), the only layout FP8 wgmma reads (the Hopper TMA + WGMMA policies
/// refuse kKN at compile time and name this helper). A weight is converted once, at load time; it
/// is a plain copy, not tuned.
#pragma once

#include <cstdint>
#include <string>

#include "fp8gemm/arch/gpu_runtime.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// dst[n][k] = src[k][n] for k < K, n < N: src [K, N] with leading dimension ld_src >= N, dst
/// [N, K] with ld_dst >= K (for the WGMMA kernel: a multiple of 16). T: any 1-byte fp8 type.
struct TransposeArgs {
  int k = 0, n = 0;
  std::int64_t ld_src = 0, ld_dst = 0;
};

inline Status check_transpose(void const* src, void const* dst, TransposeArgs const& t) {
  if (src == nullptr || dst == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, "transpose: src or dst is null");
  if (t.k < 1 || t.n < 1)
    return Status::error(StatusCode::kErrorInvalidSize,
                         "transpose: K and N must be >= 1 (got K=" + std::to_string(t.k) +
                             ", N=" + std::to_string(t.n) + ")");
  if (t.ld_src < t.n)
    return Status::error(StatusCode::kErrorLeadingDimension,
                         "transpose: ld_src (" + std::to_string(t.ld_src) + ") must be >= N (" +
                             std::to_string(t.n) + ")");
  if (t.ld_dst < t.k)
    return Status::error(StatusCode::kErrorLeadingDimension,
                         "transpose: ld_dst (" + std::to_string(t.ld_dst) + ") must be >= K (" +
                             std::to_string(t.k) + ")");
  return Status::success();
}

/// Host memory: dst[n][k] = src[k][n].
template <class T>
Status transpose_kn_to_nk_host(T const* src, T* dst, TransposeArgs const& t) {
  static_assert(sizeof(T) == 1, "transpose_kn_to_nk: 1-byte fp8 elements");
  FP8GEMM_RETURN_IF_ERROR(check_transpose(src, dst, t));
  for (int n = 0; n < t.n; ++n)
    for (int k = 0; k < t.k; ++k) dst[n * t.ld_dst + k] = src[k * t.ld_src + n];
  return Status::success();
}

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
namespace detail {
/// One output byte per thread, grid-stride: reads along N are strided (a one-time conversion).
template <class T>
__global__ void transpose_kn_to_nk_kernel(T const* src, T* dst, TransposeArgs t) {
  std::int64_t const total = std::int64_t(t.n) * t.k;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t const n = i / t.k, k = i % t.k;
    dst[n * t.ld_dst + k] = src[k * t.ld_src + n];
  }
}
}  // namespace detail

/// Device memory, ordered on `stream`: dst[n][k] = src[k][n].
template <class T>
Status transpose_kn_to_nk_gpu(T const* src, T* dst, TransposeArgs const& t,
                              gpuStream_t stream = nullptr) {
  static_assert(sizeof(T) == 1, "transpose_kn_to_nk: 1-byte fp8 elements");
  FP8GEMM_RETURN_IF_ERROR(check_transpose(src, dst, t));
  std::int64_t const blocks = (std::int64_t(t.n) * t.k + 255) / 256;
  arch::LaunchShape const shape{static_cast<unsigned int>(blocks < 65536 ? blocks : 65536), 1, 256};
  return arch::launch_kernel(detail::transpose_kn_to_nk_kernel<T>, shape, stream,
                             "transpose_kn_to_nk_kernel launch", src, dst, t);
}
#endif

}  // namespace fp8gemm
