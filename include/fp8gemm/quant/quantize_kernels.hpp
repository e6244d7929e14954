// SPDX-License-Identifier: MIT
/// GPU quantizers (quant layer): per-block amax, scales from amax and fp8 quantization of A and B,
/// bit-identical to quantize_host.hpp (same element math from quantize_common.hpp). HIP and CUDA.
/// All pointers in the Args are device pointers. Conventions: see quantize_common.hpp.
#pragma once

#include "fp8gemm/config.hpp"

#if defined(FP8GEMM_HAS_GPU_RUNTIME)

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/gpu_runtime.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/quant/quantize_common.hpp"

namespace fp8gemm {

namespace detail {

inline constexpr int kQuantThreads = 256;
inline constexpr std::int64_t kMaxAmaxChunks = 65535;  // the grid's y limit
inline constexpr std::int64_t kElementsPerThread = 16;
inline constexpr std::int64_t kMaxGridX = 2147483647;
inline constexpr unsigned long long kNoBadIndex = ~0ull;

/// Device scratch freed on scope exit (errors from the free are ignored: the caller's status wins).
class DeviceScratch {
 public:
  DeviceScratch() = default;
  DeviceScratch(DeviceScratch const&) = delete;
  DeviceScratch& operator=(DeviceScratch const&) = delete;
  ~DeviceScratch() {
    if (ptr_ != nullptr) static_cast<void>(arch::device_free(ptr_));
  }
  Status allocate(std::size_t bytes) {
    return gpu_status(arch::device_malloc(&ptr_, bytes), "quantize scratch allocation");
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// ---- kernels (launched with kQuantThreads threads per workgroup) -----------------------------

/// amax_bits[e] = max over block e of abs_bits(x) (order-independent, so deterministic), and
/// first_bad (if not null) = min (r * K + k) over non-finite elements. Grid: x = scale entry,
/// y = chunk of it (`chunks` of them), kThreads threads each. amax_bits must start at 0 and
/// first_bad at kNoBadIndex. (A template, like every kernel in a header: one definition however
/// many translation units include it.)
template <int kThreads>
FP8GEMM_GLOBAL void amax_kernel(float const* x, OperandView v, ScaleBlocking b, int chunks,
                                unsigned int* amax_bits, unsigned long long* first_bad) {
  __shared__ unsigned int partial[kThreads];  // [kThreads] per-thread maxima
  int const t = arch::thread_idx();
  std::int64_t const entry = arch::block_idx_x();
  std::int64_t const r0 = (entry / b.cols) * b.block_rows;
  std::int64_t const k0 = (entry % b.cols) * b.block_k;
  std::int64_t const nr = (r0 + b.block_rows < v.rows ? r0 + b.block_rows : v.rows) - r0;
  std::int64_t const nk = (k0 + b.block_k < v.k ? k0 + b.block_k : v.k) - k0;
  std::int64_t const stride = static_cast<std::int64_t>(chunks) * kThreads;

  unsigned int m = 0;
  for (std::int64_t j = static_cast<std::int64_t>(arch::block_idx_y()) * kThreads + t; j < nr * nk;
       j += stride) {
    std::int64_t const r = r0 + j / nk;
    std::int64_t const kk = k0 + j % nk;
    unsigned int const a = abs_bits(x[v.offset(r, kk)]);
    m = a > m ? a : m;
    if (!is_finite_bits(a) && first_bad != nullptr)
      arch::atomic_min(first_bad, static_cast<unsigned long long>(r * v.k + kk));
  }
  partial[t] = m;
  arch::sync_block();  // waits for: every thread's partial max
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      unsigned int const o = partial[t + half];
      if (o > partial[t]) partial[t] = o;
    }
    arch::sync_block();  // waits for: this level of the tree
  }
  if (t == 0 && partial[0] != 0) arch::atomic_max(amax_bits + entry, partial[0]);
}

/// scales[b.store_index(e)] = scale_from_amax<T>(amax[e]) or mx_scales[e] =
/// mx_scale_from_amax<T>(amax[e]); first_bad = min e with a non-finite amax.
template <class T, bool kMx>
FP8GEMM_GLOBAL void scales_kernel(float const* amax, std::int64_t count, float* scales,
                                  e8m0* mx_scales, ScaleOptions options,
                                  unsigned long long* first_bad, ScaleBlocking b) {
  std::int64_t const e =
      static_cast<std::int64_t>(arch::block_idx_x()) * kQuantThreads + arch::thread_idx();
  if (e >= count) return;
  float const a = amax[e];
  if (!is_finite_bits(abs_bits(a)) && first_bad != nullptr) {
    arch::atomic_min(first_bad, static_cast<unsigned long long>(e));
  }
  if constexpr (kMx) {
    mx_scales[e] = mx_scale_from_amax<T>(a);
  } else {
    scales[b.store_index(e)] = scale_from_amax<T>(a, options);
  }
}

/// q(r, k) = quantize_value<T>(x(r, k), s[block(r, k)], rounding, seed, r * K + k); a grid-stride
/// loop over a grid of `blocks` workgroups.
template <class T, bool kMx>
FP8GEMM_GLOBAL void quantize_kernel(float const* x, OperandView v, T* q, OperandView qv,
                                    ScaleBlocking b, float const* scales, e8m0 const* mx_scales,
                                    Rounding rounding, std::uint64_t seed, unsigned int blocks) {
  std::int64_t const total = v.rows * v.k;
  std::int64_t const stride = static_cast<std::int64_t>(blocks) * kQuantThreads;
  for (std::int64_t i =
           static_cast<std::int64_t>(arch::block_idx_x()) * kQuantThreads + arch::thread_idx();
       i < total; i += stride) {
    std::int64_t const r = i / v.k;
    std::int64_t const kk = i % v.k;
    std::int64_t const e = b.index(r, kk);
    float const s = kMx ? mx_scale_value(mx_scales[e]) : scales[b.store_index(e)];
    q[qv.offset(r, kk)] =
        quantize_value<T>(x[v.offset(r, kk)], s, rounding, seed, static_cast<std::uint64_t>(i));
  }
}

// ---- launch helpers --------------------------------------------------------------------------

inline unsigned int grid_for(std::int64_t work, std::int64_t per_block) {
  std::int64_t g = ceil_div(work, per_block);
  if (g < 1) g = 1;
  if (g > kMaxGridX) g = kMaxGridX;
  return static_cast<unsigned int>(g);
}

/// Resets amax_bits (to 0) and first_bad (to kNoBadIndex, if not null), then launches amax_kernel.
inline Status launch_amax(float const* x, OperandView v, ScaleBlocking b, unsigned int* amax_bits,
                          unsigned long long* first_bad, gpuStream_t stream) {
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::memset_async(
      amax_bits, 0, static_cast<std::size_t>(b.count()) * sizeof(unsigned int), stream));
  if (first_bad != nullptr) {
    FP8GEMM_GPU_RETURN_IF_ERROR(
        arch::memset_async(first_bad, 0xff, sizeof(unsigned long long), stream));
  }
  std::int64_t const block_elems = b.block_rows * b.block_k;
  std::int64_t chunks = ceil_div(block_elems, kQuantThreads * kElementsPerThread);
  if (chunks > kMaxAmaxChunks) chunks = kMaxAmaxChunks;
  if (b.count() > kMaxGridX) {
    return Status::error(StatusCode::kErrorUnsupported,
                         "quantize: more than 2^31 - 1 scale blocks are not supported on the GPU");
  }
  arch::LaunchShape const shape{static_cast<unsigned int>(b.count()),
                                static_cast<unsigned int>(chunks), kQuantThreads};
  return arch::launch_kernel(amax_kernel<kQuantThreads>, shape, stream, "amax_kernel launch", x, v,
                             b, static_cast<int>(chunks), amax_bits, first_bad);
}

template <class G>
Status amax_gpu_impl(Operand op, float const* x, OperandView v, float* amax, gpuStream_t stream) {
  ScaleBlocking const b = scale_blocking<G>(op, v.rows, v.k);
  // The float amax array holds the amax bits directly: abs_bits(x) is the bit pattern of |x|.
  return launch_amax(x, v, b, reinterpret_cast<unsigned int*>(amax), nullptr, stream);
}

template <class T, class G>
Status quantize_gpu_impl(Operand op, float const* x, OperandView v, T* q, std::int64_t ldq,
                         float* scales, e8m0* mx_scales, ScaleOptions options, Rounding rounding,
                         std::uint64_t seed, gpuStream_t stream, std::int64_t scale_ld = 0) {
  constexpr bool kMx = std::is_same_v<G, Mx32>;
  ScaleBlocking b = scale_blocking<G>(op, v.rows, v.k);
  b.ld = scale_ld;
  // scratch: [first_bad u64][amax bits u32 x count]
  DeviceScratch scratch;
  FP8GEMM_RETURN_IF_ERROR(
      scratch.allocate(sizeof(unsigned long long) + static_cast<std::size_t>(b.count()) * 4));
  auto* first_bad = static_cast<unsigned long long*>(scratch.get());
  auto* amax_bits = reinterpret_cast<unsigned int*>(first_bad + 1);
  FP8GEMM_RETURN_IF_ERROR(launch_amax(x, v, b, amax_bits, first_bad, stream));

  FP8GEMM_RETURN_IF_ERROR(arch::launch_kernel(
      scales_kernel<T, kMx>, {grid_for(b.count(), kQuantThreads), 1, kQuantThreads}, stream,
      "scales_kernel launch", reinterpret_cast<float const*>(amax_bits), b.count(), scales,
      mx_scales, options, static_cast<unsigned long long*>(nullptr), b));

  // NOTE: reading first_bad back synchronizes the stream; it is what lets a non-finite input be
  // reported as a Status (the same one the host quantizer returns) instead of silently.
  unsigned long long bad = kNoBadIndex;
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::copy_to_host_async(&bad, first_bad, sizeof(bad), stream));
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::stream_synchronize(stream));
  if (bad != kNoBadIndex) {
    std::int64_t const r = static_cast<std::int64_t>(bad) / v.k;
    std::int64_t const kk = static_cast<std::int64_t>(bad) % v.k;
    float value = 0.0f;
    FP8GEMM_GPU_RETURN_IF_ERROR(
        arch::copy_to_host_async(&value, x + v.offset(r, kk), sizeof(value), stream));
    FP8GEMM_GPU_RETURN_IF_ERROR(arch::stream_synchronize(stream));
    return non_finite_input(op, value, r, kk);
  }

  OperandView const qv{v.rows, v.k, ldq, v.k_contiguous};
  unsigned int const blocks = grid_for(v.rows * v.k, kQuantThreads * kElementsPerThread);
  return arch::launch_kernel(quantize_kernel<T, kMx>, {blocks, 1, kQuantThreads}, stream,
                             "quantize_kernel launch", x, v, q, qv, b, scales, mx_scales, rounding,
                             seed, blocks);
}

}  // namespace detail

/// GPU amax_a_host: amax[i] = max |x| over scale block i of A (NaN > Inf > finite). Asynchronous.
template <class G>
[[nodiscard]] Status amax_a_gpu(AmaxAArgs const& args, gpuStream_t stream = nullptr) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::amax_gpu_impl<G>(Operand::kA, args.x, view_a(args.m, args.k, args.lda), args.amax,
                                  stream);
}

/// GPU amax_b_host (blocks counted over (n, k), either layout). Asynchronous.
template <class G>
[[nodiscard]] Status amax_b_gpu(AmaxBArgs const& args, gpuStream_t stream = nullptr) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::amax_gpu_impl<G>(Operand::kB, args.x,
                                  view_b(args.n, args.k, args.ldb, args.layout), args.amax, stream);
}

/// GPU scales_from_amax_host. Synchronizes the stream to report a non-finite amax (the status
/// names the first one; its scale is NaN, as on the host).
template <class T, class G>
[[nodiscard]] Status scales_from_amax_gpu(ScalesFromAmaxArgs const& args,
                                          gpuStream_t stream = nullptr) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  constexpr bool kMx = std::is_same_v<G, Mx32>;
  detail::DeviceScratch scratch;
  FP8GEMM_RETURN_IF_ERROR(scratch.allocate(sizeof(unsigned long long)));
  auto* first_bad = static_cast<unsigned long long*>(scratch.get());
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::memset_async(first_bad, 0xff, sizeof(*first_bad), stream));
  FP8GEMM_RETURN_IF_ERROR(arch::launch_kernel(
      detail::scales_kernel<T, kMx>,
      {detail::grid_for(args.count, detail::kQuantThreads), 1, detail::kQuantThreads}, stream,
      "scales_kernel launch", args.amax, args.count, args.scales, args.mx_scales, args.options,
      first_bad, ScaleBlocking{}));
  unsigned long long bad = detail::kNoBadIndex;
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::copy_to_host_async(&bad, first_bad, sizeof(bad), stream));
  FP8GEMM_GPU_RETURN_IF_ERROR(arch::stream_synchronize(stream));
  if (bad != detail::kNoBadIndex) {
    float value = 0.0f;
    FP8GEMM_GPU_RETURN_IF_ERROR(
        arch::copy_to_host_async(&value, args.amax + bad, sizeof(value), stream));
    FP8GEMM_GPU_RETURN_IF_ERROR(arch::stream_synchronize(stream));
    return detail::non_finite_amax<G>(args.operand, value, static_cast<std::int64_t>(bad));
  }
  return Status::success();
}

/// GPU quantize_a_host, bit-identical to it. Synchronizes the stream once (after the amax pass) to
/// report non-finite input; the quantize kernel itself is left running on `stream`.
template <class T, class G>
[[nodiscard]] Status quantize_a_gpu(QuantizeAArgs<T> const& args, gpuStream_t stream = nullptr) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::quantize_gpu_impl<T, G>(
      Operand::kA, args.x, view_a(args.m, args.k, args.lda), args.q, args.ldq, args.scales,
      args.mx_scales, args.scale_options, args.rounding, args.seed, stream, args.scale_ld);
}

/// GPU quantize_b_host, bit-identical to it (either layout).
template <class T, class G>
[[nodiscard]] Status quantize_b_gpu(QuantizeBArgs<T> const& args, gpuStream_t stream = nullptr) {
  FP8GEMM_RETURN_IF_ERROR(validate_args<G>(args));
  return detail::quantize_gpu_impl<T, G>(
      Operand::kB, args.x, view_b(args.n, args.k, args.ldb, args.layout), args.q, args.ldq,
      args.scales, args.mx_scales, args.scale_options, args.rounding, args.seed, stream);
}

}  // namespace fp8gemm

#endif  // FP8GEMM_HAS_GPU_RUNTIME
