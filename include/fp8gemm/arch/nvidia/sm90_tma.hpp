// SPDX-License-Identifier: MIT
/// Hopper tensor memory accelerator (arch layer): 2-D bulk tensor copies global -> shared
/// (completing on an mbarrier) and shared -> global, and the host side that builds their tensor
/// maps (cuTensorMapEncodeTiled through the runtime's driver entry point: no -lcuda), with every
/// parameter the driver would refuse checked first and refused as a Status that says which.
/// Device PTX only in sm_90a device passes; the parameter checks compile everywhere; the encoder
/// needs the CUDA runtime (FP8GEMM_BACKEND_CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/status.hpp"

#if defined(FP8GEMM_BACKEND_CUDA)
#include <cuda.h>  // CUtensorMap and the enums only; the function comes from the driver at run time
#include <cudaTypedefs.h>
#endif

namespace fp8gemm::arch {

/// An encoded tensor map (CUtensorMap): 128 opaque bytes; the driver needs 64-byte alignment,
/// CUDA 13's cuda.h declares 128. Pass it to a kernel
/// as a `__grid_constant__ const TmaDescriptor` parameter (it must stay in parameter space) or
/// keep it in global/constant memory; the copies take its generic address.
struct alignas(128) TmaDescriptor {
  std::uint8_t bytes[128] = {};
};
#if defined(FP8GEMM_BACKEND_CUDA)
static_assert(sizeof(TmaDescriptor) == sizeof(CUtensorMap) &&
                  alignof(TmaDescriptor) >= alignof(CUtensorMap),
              "TmaDescriptor must have CUtensorMap's size and alignment");
#endif

/// Element type of a tensor map: its size in bytes is all that TMA uses for fp8 (UINT8).
enum class TmaElement : std::uint8_t { kU8, kU16, kBf16, kF16, kF32 };

inline constexpr int tma_element_bytes(TmaElement e) {
  switch (e) {
    case TmaElement::kU8:
      return 1;
    case TmaElement::kU16:
    case TmaElement::kBf16:
    case TmaElement::kF16:
      return 2;
    case TmaElement::kF32:
      return 4;
  }
  return 1;
}

/// Shared-memory swizzle of a tensor map; the 128-byte one is tile/smem_swizzle.hpp's Swizzle128B.
enum class TmaSwizzle : std::uint8_t { kNone, k32B, k64B, k128B };

inline constexpr int tma_swizzle_span_bytes(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::kNone:
      return 0;
    case TmaSwizzle::k32B:
      return 32;
    case TmaSwizzle::k64B:
      return 64;
    case TmaSwizzle::k128B:
      return 128;
  }
  return 0;
}

/// How many bytes an L2 miss of a TMA copy fetches from memory (CUtensorMapL2promotion).
enum class TmaL2Promotion : std::uint8_t { kNone, k64B, k128B, k256B };

/// A row-major 2-D tensor and the box one copy moves: dimension 0 (inner, contiguous) has
/// `inner` elements, dimension 1 has `outer` rows `row_stride_bytes` apart; a copy moves
/// box_inner x box_outer elements, in shared memory box_inner · element bytes per row, rows packed.
/// For a K-major fp8 operand tile: inner = K, outer = M (or N), box = {128, BM}, kSwizzle128B.
struct TmaTensor2d {
  void const* base = nullptr;
  TmaElement element = TmaElement::kU8;
  std::uint64_t inner = 0;             // elements per row (globalDim[0])
  std::uint64_t outer = 0;             // rows (globalDim[1])
  std::uint64_t row_stride_bytes = 0;  // globalStrides[0]
  std::uint32_t box_inner = 0;         // boxDim[0], elements
  std::uint32_t box_outer = 0;         // boxDim[1], rows
  TmaSwizzle swizzle = TmaSwizzle::kNone;
  TmaL2Promotion l2_promotion = TmaL2Promotion::k128B;  // CuTe's default; DeepGEMM uses 256 B
};

/// The driver's rules for a tiled 2-D tensor map (cuTensorMapEncodeTiled, CUDA 13.0 cuda.h),
/// checked before calling it, since it only answers CUDA_ERROR_INVALID_VALUE:
///   base non-null and 16-B aligned; 1 <= dims <= 2^32; the row stride a multiple of 16, < 2^40
///   and at least a row's bytes; 1 <= box dims <= 256; the box's inner bytes a multiple of 16 and,
///   with a swizzle, at most the swizzle span (128 B for kSwizzle128B).
inline Status check_tma_tensor_2d(TmaTensor2d const& t) {
  auto refuse = [](StatusCode code, std::string msg) {
    return Status::error(code, "TMA tensor map: " + std::move(msg));
  };
  int const eb = tma_element_bytes(t.element);
  if (t.base == nullptr) return refuse(StatusCode::kErrorNullPointer, "base address is null");
  if (reinterpret_cast<std::uintptr_t>(t.base) % 16 != 0)
    return refuse(StatusCode::kErrorMisaligned, "base address must be 16-byte aligned");
  constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 32;
  if (t.inner < 1 || t.inner > kMaxDim || t.outer < 1 || t.outer > kMaxDim)
    return refuse(StatusCode::kErrorInvalidSize, "dimensions must be in [1, 2^32]; got inner " +
                                                     std::to_string(t.inner) + ", outer " +
                                                     std::to_string(t.outer));
  if (t.row_stride_bytes % 16 != 0)
    return refuse(StatusCode::kErrorMisaligned, "row stride must be a multiple of 16 bytes; got " +
                                                    std::to_string(t.row_stride_bytes) +
                                                    " (for fp8: a leading dimension that "
                                                    "is a multiple of 16 elements)");
  if (t.row_stride_bytes >= (std::uint64_t{1} << 40))
    return refuse(StatusCode::kErrorInvalidSize,
                  "row stride must be below 2^40 bytes; got " + std::to_string(t.row_stride_bytes));
  if (t.row_stride_bytes < t.inner * static_cast<std::uint64_t>(eb))
    return refuse(StatusCode::kErrorLeadingDimension,
                  "row stride " + std::to_string(t.row_stride_bytes) +
                      " bytes is smaller than a row (" +
                      std::to_string(t.inner * static_cast<std::uint64_t>(eb)) + " bytes)");
  if (t.box_inner < 1 || t.box_inner > 256 || t.box_outer < 1 || t.box_outer > 256)
    return refuse(StatusCode::kErrorInvalidArgument, "box dimensions must be in [1, 256]; got " +
                                                         std::to_string(t.box_inner) + " x " +
                                                         std::to_string(t.box_outer));
  std::uint32_t const box_bytes = t.box_inner * static_cast<std::uint32_t>(eb);
  if (box_bytes % 16 != 0)
    return refuse(
        StatusCode::kErrorInvalidArgument,
        "box inner extent must be a multiple of 16 bytes; got " + std::to_string(box_bytes));
  int const span = tma_swizzle_span_bytes(t.swizzle);
  if (span > 0 && box_bytes > static_cast<std::uint32_t>(span))
    return refuse(StatusCode::kErrorInvalidArgument,
                  "box inner extent of " + std::to_string(box_bytes) +
                      " bytes exceeds the swizzle span of " + std::to_string(span) +
                      " bytes (a 128-byte swizzle takes 128 fp8 values of K per box row)");
  return Status::success();
}

#if defined(FP8GEMM_BACKEND_CUDA)
/// cuTensorMapEncodeTiled from the driver, looked up once (thread-safe: a function-local static)
/// through the runtime, so that no -lcuda link is needed.
inline Status tma_encode_function(PFN_cuTensorMapEncodeTiled_v12000* fn) {
  struct Lookup {
    void* fn = nullptr;
    cudaError_t error = cudaSuccess;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  };
  static Lookup const lookup = [] {
    Lookup l;
    // ByVersion: the unversioned cudaGetDriverEntryPoint is deprecated in CUDA 13 (a warning,
    // so an error under --Werror=all-warnings). 12000: the CUDA 12.0 ABI of the function.
    l.error = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &l.fn, 12000,
                                               cudaEnableDefault, &l.query);
    return l;
  }();
  FP8GEMM_RETURN_IF_ERROR(
      gpu_status(lookup.error, "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)"));
  if (lookup.query != cudaDriverEntryPointSuccess || lookup.fn == nullptr)
    return Status::error(StatusCode::kErrorUnsupported,
                         "TMA tensor map: the driver has no cuTensorMapEncodeTiled (needs a "
                         "CUDA 12 driver and a compute capability 9.0 GPU)");
  *fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(lookup.fn);
  return Status::success();
}

/// Encodes `t` into `out` after check_tma_tensor_2d: interleave none, element strides 1,
/// out-of-bounds elements read as zero (TMA clips stores at the tensor's edge).
inline Status encode_tma_descriptor(TmaTensor2d const& t, TmaDescriptor* out) {
  if (out == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, "TMA tensor map: output is null");
  FP8GEMM_RETURN_IF_ERROR(check_tma_tensor_2d(t));
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  FP8GEMM_RETURN_IF_ERROR(tma_encode_function(&encode));
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  switch (t.element) {
    case TmaElement::kU8:
      type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
      break;
    case TmaElement::kU16:
      type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
      break;
    case TmaElement::kBf16:
      type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
      break;
    case TmaElement::kF16:
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      break;
    case TmaElement::kF32:
      type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
      break;
  }
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  switch (t.swizzle) {
    case TmaSwizzle::kNone:
      swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
      break;
    case TmaSwizzle::k32B:
      swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
      break;
    case TmaSwizzle::k64B:
      swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
      break;
    case TmaSwizzle::k128B:
      swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
      break;
  }
  CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  switch (t.l2_promotion) {
    case TmaL2Promotion::kNone:
      l2 = CU_TENSOR_MAP_L2_PROMOTION_NONE;
      break;
    case TmaL2Promotion::k64B:
      l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
      break;
    case TmaL2Promotion::k128B:
      l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
      break;
    case TmaL2Promotion::k256B:
      l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
      break;
  }
  cuuint64_t const dims[2] = {t.inner, t.outer};
  cuuint64_t const strides[1] = {t.row_stride_bytes};
  cuuint32_t const box[2] = {t.box_inner, t.box_outer};
  cuuint32_t const element_strides[2] = {1, 1};
  CUresult const r = encode(reinterpret_cast<CUtensorMap*>(out), type, 2, const_cast<void*>(t.base),
                            dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            swizzle, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return Status::error(StatusCode::kErrorGpuRuntime,
                         "TMA tensor map: cuTensorMapEncodeTiled failed with CUresult " +
                             std::to_string(static_cast<int>(r)));
  return Status::success();
}
/// This build encodes tensor maps (the CUDA runtime's driver entry point).
inline constexpr bool kTmaEncoderAvailable = true;
#else
inline constexpr bool kTmaEncoderAvailable = false;
/// Without the CUDA runtime there is no driver to encode tensor maps: refused.
inline Status encode_tma_descriptor(TmaTensor2d const& t, TmaDescriptor* out) {
  (void)t, (void)out;
  return Status::error(StatusCode::kErrorUnsupported,
                       "TMA tensor maps need the CUDA runtime (an nvcc build)");
}
#endif  // FP8GEMM_BACKEND_CUDA

/// prefetch.tensormap: pulls the tensor map into the cache before its first use.
FP8GEMM_DEVICE void tma_prefetch_descriptor(TmaDescriptor const* map) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)map;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)map;
#endif
}

/// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes: copies the box
/// at element (c0 inner, c1 row) of the tensor into shared memory at `smem_dst` (128-B aligned;
/// 1024-B for the 128-byte swizzle) and completes its bytes on `bar`, which the issuing thread
/// armed with Mbarrier::arrive_expect_tx. Out-of-bounds elements arrive as zeros.
FP8GEMM_DEVICE void tma_load_2d(void* smem_dst, TmaDescriptor const* map, std::uint64_t* bar,
                                int c0, int c1) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(c0), "r"(c1)
      : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1;
#endif
}

/// L2 cache policies for TMA copies (createpolicy.fractional, fraction 1.0: every line the copy
/// brings): evict_first for lines read once (an operand streamed through the GEMM), evict_last
/// for lines many CTAs read again (the operand every tile shares). Opaque 64-bit values, made on
/// the device.
FP8GEMM_DEVICE std::uint64_t l2_policy_evict_first() {
  std::uint64_t policy = 0;
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
  return policy;
}
FP8GEMM_DEVICE std::uint64_t l2_policy_evict_last() {
  std::uint64_t policy = 0;
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
  return policy;
}

/// tma_load_2d's copy with an L2 cache policy (.L2::cache_hint; l2_policy_evict_first / _last).
FP8GEMM_DEVICE void tma_load_2d(void* smem_dst, TmaDescriptor const* map, std::uint64_t* bar,
                                int c0, int c1, std::uint64_t l2_policy) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(c0), "r"(c1),
      "l"(l2_policy)
      : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1, (void)l2_policy;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1, (void)l2_policy;
#endif
}

/// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster:
/// tma_load_2d's copy, landing at the same shared-memory offset (`smem_dst`'s) in every CTA of the
/// cluster whose rank has its bit set in `cta_mask` (bit r: rank r; this CTA's own bit included
/// when it wants the box too), each completing its bytes on the mbarrier at `bar`'s offset in
/// that CTA. Every receiving CTA's barrier must expect those bytes (arrive_expect_tx) in the
/// phase they land in; one L2 read feeds all of them.
FP8GEMM_DEVICE void tma_load_2d_multicast(void* smem_dst, TmaDescriptor const* map,
                                          std::uint64_t* bar, int c0, int c1,
                                          std::uint16_t cta_mask) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(c0), "r"(c1),
      "h"(cta_mask)
      : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1, (void)cta_mask;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)smem_dst, (void)map, (void)bar, (void)c0, (void)c1, (void)cta_mask;
#endif
}

/// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: copies a box from shared memory
/// `smem_src` (128-B aligned) to element (c0, c1) of the tensor; elements outside the tensor are
/// not written. The writers of smem_src issue fence_proxy_async_shared() before the barrier that
/// precedes this; tma_store_commit_group() and tma_store_wait<>() track completion.
FP8GEMM_DEVICE void tma_store_2d(TmaDescriptor const* map, void const* smem_src, int c0, int c1) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(smem_address(smem_src)), "r"(c0), "r"(c1)
      : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)map, (void)smem_src, (void)c0, (void)c1;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)map, (void)smem_src, (void)c0, (void)c1;
#endif
}

/// cp.async.bulk.commit_group: closes this thread's bulk stores issued since the last commit
/// into one group.
FP8GEMM_DEVICE void tma_store_commit_group() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// cp.async.bulk.wait_group.read Pending: waits until at most `Pending` of this thread's groups
/// still read their shared-memory source (the staging buffer may then be rewritten).
template <int Pending>
FP8GEMM_DEVICE void tma_store_wait_read() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// cp.async.bulk.wait_group Pending: waits until at most `Pending` of this thread's groups are
/// incomplete, writes to global memory included.
template <int Pending>
FP8GEMM_DEVICE void tma_store_wait() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(Pending) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

}  // namespace fp8gemm::arch
