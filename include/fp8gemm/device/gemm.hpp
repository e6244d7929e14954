// SPDX-License-Identifier: MIT
/// Gemm: the device-level API (device layer). Arguments -> can_implement (every refusal explained)
/// -> workspace_size -> run(args, stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/epilogue/functors.hpp"
#include "fp8gemm/kernel/gemm_kernel.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// C = epilogue((s_a (x) s_b) * (A_q B_q)) with A [M, K] (K contiguous), B [N, K] or [K, N],
/// C [M, N] (N contiguous). Config is a GemmConfig<Policy, Granularity, LayoutB, Epilogue, ...>.
template <class Config>
class Gemm {
 public:
  using Policy = typename Config::Policy;
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  using Granularity = typename Config::Granularity;
  using Kernel = GemmKernel<Config>;
  using ReduceKernel = SplitKReduceKernel<Config>;
  using EpilogueParams = typename Config::Epilogue::Params;
  static constexpr LayoutB kLayoutB = Config::kLayoutB;

  struct Arguments {
    int m = 0, n = 0, k = 0;
    ElementA const* a = nullptr;     // [M, K], lda >= K
    std::int64_t lda = 0;
    ElementB const* b = nullptr;     // kNK: [N, K], ldb >= K;  kKN: [K, N], ldb >= N
    std::int64_t ldb = 0;
    Scale const* scale_a = nullptr;  // shapes: fp8gemm/quant/granularity.hpp
    std::int64_t scale_a_count = 0;  // elements in scale_a (checked against the granularity)
    Scale const* scale_b = nullptr;
    std::int64_t scale_b_count = 0;
    EpilogueParams epilogue{};       // c, ldc, bias, output_scale, amax
    int split_k = 1;                 // >1: K split over workgroups, reduced deterministically
    int group_m = 8;                 // grouped tile order (tile rows per group)
    void* workspace = nullptr;       // workspace_size(args) bytes when split_k > 1
  };

  static std::string name() {
    return std::string(Policy::Atom::kName) + "_" + std::to_string(Policy::kBlockM) + "x" +
           std::to_string(Policy::kBlockN) + "x" + std::to_string(Policy::kBlockK) + "_w" +
           std::to_string(Policy::kWavesM) + "x" + std::to_string(Policy::kWavesN) + "_s" +
           std::to_string(Policy::kStages) + "_" + FormatTraits<ElementA>::kName + "_" +
           FormatTraits<ElementB>::kName + "_" + Granularity::kName + "_" + layout_name(kLayoutB) +
           "_" + Config::Epilogue::Act::kName;
  }

  /// Bytes of workspace `run` needs (0 unless split_k > 1).
  /// SIZE_MAX when the size does not fit a size_t (can_implement refuses such arguments anyway).
  static std::size_t workspace_size(Arguments const& args) {
    if (args.split_k <= 1 || args.m < 1 || args.n < 1) return 0;
    std::size_t const per_split = std::size_t(args.m) * std::size_t(args.n) * sizeof(float);  // < 2^64
    if (per_split > SIZE_MAX / std::size_t(args.split_k)) return SIZE_MAX;
    return std::size_t(args.split_k) * per_split;
  }

  /// Every precondition of run(), checked on the host; the message names the one that failed.
  [[nodiscard]] static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    if (args.m < 1 || args.n < 1 || args.k < 1)
      return fail(StatusCode::kErrorInvalidSize, "M, N and K must be >= 1 (got M=" + std::to_string(args.m) +
                                                     ", N=" + std::to_string(args.n) + ", K=" + std::to_string(args.k) + ")");
    // Tile origins plus an in-tile offset (m0 + row, k0 + k) are int: keep them below 2^31.
    if (args.m > INT32_MAX - Policy::kBlockM || args.n > INT32_MAX - Policy::kBlockN ||
        args.k > INT32_MAX - Policy::kBlockK)
      return fail(StatusCode::kErrorInvalidSize,
                  "M, N and K must be at most 2^31 - 1 minus the block tile (" + std::to_string(Policy::kBlockM) +
                      " x " + std::to_string(Policy::kBlockN) + " x " + std::to_string(Policy::kBlockK) +
                      ") so that tile indices fit in int; got M=" + std::to_string(args.m) +
                      ", N=" + std::to_string(args.n) + ", K=" + std::to_string(args.k));
    if (args.a == nullptr) return fail(StatusCode::kErrorNullPointer, "A is null");
    if (args.b == nullptr) return fail(StatusCode::kErrorNullPointer, "B is null");
    if (args.epilogue.c == nullptr) return fail(StatusCode::kErrorNullPointer, "C is null");
    if (args.scale_a == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_a is null");
    if (args.scale_b == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_b is null");
    if (args.lda < args.k)
      return fail(StatusCode::kErrorLeadingDimension,
                  "lda (" + std::to_string(args.lda) + ") must be >= K (" + std::to_string(args.k) + ")");
    std::int64_t const ldb_min = kLayoutB == LayoutB::kNK ? args.k : args.n;
    if (args.ldb < ldb_min)
      return fail(StatusCode::kErrorLeadingDimension,
                  std::string("ldb (") + std::to_string(args.ldb) + ") must be >= " +
                      (kLayoutB == LayoutB::kNK ? "K" : "N") + " (" + std::to_string(ldb_min) +
                      ") for " + layout_name(kLayoutB));
    if (args.epilogue.ldc < args.n)
      return fail(StatusCode::kErrorLeadingDimension,
                  "ldc (" + std::to_string(args.epilogue.ldc) + ") must be >= N (" + std::to_string(args.n) + ")");
    // 16-byte vector loads of every row: the pointer and the row pitch both.
    if (!aligned16(args.a))
      return fail(StatusCode::kErrorMisaligned, "A must be 16-byte aligned (16-byte vector loads); its address is " +
                                                    std::to_string(misalignment16(args.a)) + " bytes past a multiple of 16");
    if (args.lda % 16 != 0)
      return fail(StatusCode::kErrorMisaligned, "lda must be a multiple of 16 (16-byte vector loads of every row); got lda=" +
                                                    std::to_string(args.lda) + ": pad the leading dimension");
    if (!aligned16(args.b))
      return fail(StatusCode::kErrorMisaligned, "B must be 16-byte aligned (16-byte vector loads); its address is " +
                                                    std::to_string(misalignment16(args.b)) + " bytes past a multiple of 16");
    if (args.ldb % 16 != 0)
      return fail(StatusCode::kErrorMisaligned, "ldb must be a multiple of 16 (16-byte vector loads of every row); got ldb=" +
                                                    std::to_string(args.ldb) + ": pad the leading dimension");
    std::int64_t const tiles = ((args.m + std::int64_t(Policy::kBlockM) - 1) / Policy::kBlockM) *
                               ((args.n + std::int64_t(Policy::kBlockN) - 1) / Policy::kBlockN);
    std::int64_t const max_tiles = Policy::Arch::max_blocks_x(Policy::kThreads);
    if (tiles > max_tiles)
      return fail(StatusCode::kErrorInvalidSize,
                  "M x N needs " + std::to_string(tiles) + " output tiles (one workgroup each); a " +
                      Policy::Arch::kName + " grid holds at most " + std::to_string(max_tiles) +
                      " workgroups of " + std::to_string(Policy::kThreads) + " threads");
    ScaleShape const sa = scale_shape<Granularity>(Operand::kA, args.m, args.k);
    ScaleShape const sb = scale_shape<Granularity>(Operand::kB, args.n, args.k);
    if (args.scale_a_count != sa.size())
      return fail(StatusCode::kErrorScaleShape,
                  std::string(Granularity::kName) + " scale_a: expected " + std::to_string(sa.rows) + " x " +
                      std::to_string(sa.cols) + " = " + std::to_string(sa.size()) + " values, got " +
                      std::to_string(args.scale_a_count));
    if (args.scale_b_count != sb.size())
      return fail(StatusCode::kErrorScaleShape,
                  std::string(Granularity::kName) + " scale_b: expected " + std::to_string(sb.rows) + " x " +
                      std::to_string(sb.cols) + " = " + std::to_string(sb.size()) + " values, got " +
                      std::to_string(args.scale_b_count));
    if constexpr (is_output_fp8_v<ElementC>) {
      float const s = args.epilogue.output_scale;
      if (s != s)
        return fail(StatusCode::kErrorInvalidArgument,
                    "fp8 output needs output_scale (q = fp8(y / output_scale)); it is not set");
      if (!(s > 0.0f) || s > 3.4e38f)
        return fail(StatusCode::kErrorInvalidArgument,
                    "fp8 output needs a finite output_scale > 0 (q = fp8(y / output_scale)); got " +
                        std::to_string(s));
    }
    int const k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    if (args.split_k < 1 || args.split_k > k_tiles || args.split_k > Policy::Arch::kMaxBlocksY)
      return fail(StatusCode::kErrorInvalidArgument,
                  "split_k must be in [1, min(ceil(K / BlockK) = ceil(" + std::to_string(args.k) + " / " +
                      std::to_string(Policy::kBlockK) + ") = " + std::to_string(k_tiles) + ", " +
                      std::to_string(Policy::Arch::kMaxBlocksY) + " (grid.y))]; got " + std::to_string(args.split_k));
    if (args.group_m < 1)
      return fail(StatusCode::kErrorInvalidArgument, "group_m must be >= 1");
    std::int64_t const max_reduce_blocks = Policy::Arch::max_blocks_x(ReduceKernel::kThreads);
    if (args.split_k > 1 && reduce_blocks(args.m, args.n) > max_reduce_blocks)
      return fail(StatusCode::kErrorInvalidSize,
                  "split-K reduction of M x N = " + std::to_string(std::int64_t(args.m) * args.n) +
                      " outputs needs more than " + std::to_string(max_reduce_blocks) + " workgroups of " +
                      std::to_string(ReduceKernel::kThreads) + " threads; use split_k = 1");
    if (args.split_k > 1 && args.workspace == nullptr)  // after the size checks: workspace_size fits
      return fail(StatusCode::kErrorNullPointer,
                  "split_k > 1 needs a workspace of workspace_size(args) = " +
                      std::to_string(workspace_size(args)) + " bytes");
    if (args.split_k > 1 && reinterpret_cast<std::uintptr_t>(args.workspace) % alignof(float) != 0)
      return fail(StatusCode::kErrorMisaligned, "the split-K workspace must be 4-byte aligned (FP32 partial sums)");
    return arch::check_target<typename Policy::Arch>();
  }

  /// Checks, then launches on `stream` (ignored by the host emulator, which runs synchronously).
  [[nodiscard]] static Status run(Arguments const& args, gpuStream_t stream = nullptr) {
    FP8GEMM_RETURN_IF_ERROR(can_implement(args));
    typename Config::Params p = to_params(args);
    if (args.epilogue.amax != nullptr) FP8GEMM_RETURN_IF_ERROR(arch::zero_bytes(args.epilogue.amax, sizeof(float), stream));
    if (p.split_k == 1) return arch::launch<Kernel>(p.tiles_m * p.tiles_n, 1, p, stream);
    FP8GEMM_RETURN_IF_ERROR(arch::launch<Kernel>(p.tiles_m * p.tiles_n, p.split_k, p, stream));
    return arch::launch<ReduceKernel>(static_cast<int>(reduce_blocks(p.m, p.n)), 1, p, stream);
  }

  static typename Config::Params to_params(Arguments const& args) {
    typename Config::Params p;
    p.m = args.m;
    p.n = args.n;
    p.k = args.k;
    p.a = args.a;
    p.lda = args.lda;
    p.b = args.b;
    p.ldb = args.ldb;
    p.scale_a = args.scale_a;
    p.scale_b = args.scale_b;
    p.scale_a_cols = scale_shape<Granularity>(Operand::kA, args.m, args.k).cols;
    p.scale_b_cols = scale_shape<Granularity>(Operand::kB, args.n, args.k).cols;
    p.epilogue = args.epilogue;
    p.tiles_m = (args.m + Policy::kBlockM - 1) / Policy::kBlockM;
    p.tiles_n = (args.n + Policy::kBlockN - 1) / Policy::kBlockN;
    p.group_m = args.group_m;
    p.split_k = args.split_k;
    int const k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    p.k_tiles_per_split = (k_tiles + args.split_k - 1) / args.split_k;
    p.workspace = static_cast<float*>(args.workspace);
    return p;
  }

 private:
  static int misalignment16(void const* p) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(p) % 16); }
  static bool aligned16(void const* p) { return misalignment16(p) == 0; }
  static std::int64_t reduce_blocks(int m, int n) {
    return (std::int64_t(m) * n + ReduceKernel::kThreads - 1) / ReduceKernel::kThreads;
  }
};

}  // namespace fp8gemm
