// SPDX-License-Identifier: MIT
/// Gemm: the device-level API (device layer). Arguments -> can_implement (every refusal explained)
/// -> workspace_size -> run(args, stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/kernel/gemm_config.hpp"
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
  using Kernel = typename Config::Kernel;
  using ReduceKernel = SplitKReduceKernel<Kernel>;
  using EpilogueParams = typename Config::Epilogue::Params;
  static constexpr LayoutB kLayoutB = Config::kLayoutB;

  /// Alignment (can_implement refuses less): A and B 16 bytes, lda and ldb multiples of 16; C, the
  /// scales, bias, amax and the split-K workspace their element's size (accessed one element at a
  /// time); a stream-K workspace 16 bytes (float4 slots).
  struct Arguments {
    ProblemShape problem;         // M, N, K; L = 1 (one GEMM)
    ElementA const* a = nullptr;  // [M, K], lda >= K
    std::int64_t lda = 0;
    ElementB const* b = nullptr;  // kNK: [N, K], ldb >= K;  kKN: [K, N], ldb >= N
    std::int64_t ldb = 0;
    Scale const* scale_a = nullptr;  // Scale: float, e8m0 for Mx32; shape: scale_shape_a(m, k)
    std::int64_t scale_a_count = 0;  // = scale_shape_a(m, k).size() (checked)
    Scale const* scale_b = nullptr;  // shape: scale_shape_b(n, k)
    std::int64_t scale_b_count = 0;  // = scale_shape_b(n, k).size() (checked)
    EpilogueParams epilogue{};       // c, ldc, bias, output_scale (fp8 C only), amax
    int split_k = 1;                 // >1: K split over workgroups, reduced deterministically
    /// Raster order: tile rows per band (consecutive tiles walk a band down each tile column).
    /// 0: the scheduler's choice: the persistent WGMMA kernel takes the squarest wave for its
    /// tile and SM count (16 for 128 x 256 tiles on 132 SMs, 11 for 128 x 128;
    /// PersistentTileScheduler::auto_band_m), the others 8. Any value >= 1 is taken as given; the
    /// order never changes the results.
    int band_m = 0;
    void* workspace = nullptr;  // workspace_size(args) bytes when split_k > 1 or StreamK<P>
    /// Persistent WGMMA kernel: > 0 runs on at most that many SMs (CTAs; the multicast policies
    /// on whole 2-CTA clusters, at least one), leaving the others to concurrent work; 0: every
    /// SM of the device. Results do not depend on it.
    int sm_count = 0;
    /// Blockwise only, scale_a's layout. 0: row-major, as above. > 0: K-block-major, K block kb
    /// of scale row r at scale_a[kb * scale_a_ld + r], scale_a_ld >= scale_shape_a(m, k).rows
    /// (torch's column-major (M, K/128) A scales, scale_a_ld = their stride(1)); then
    /// scale_a_count >= (scale_shape_a.cols - 1) * scale_a_ld + scale_shape_a.rows.
    std::int64_t scale_a_ld = 0;
  };

  static std::string name() {
    return std::string(Policy::Atom::kName) + "_" + std::to_string(Policy::kBlockM) + "x" +
           std::to_string(Policy::kBlockN) + "x" + std::to_string(Policy::kBlockK) + "_w" +
           std::to_string(Policy::kWavesM) + "x" + std::to_string(Policy::kWavesN) + "_s" +
           std::to_string(Policy::kStages) + "_" + FormatTraits<ElementA>::kName + "_" +
           FormatTraits<ElementB>::kName + "_" + Granularity::kName + "_" + layout_name(kLayoutB) +
           "_" + Config::Epilogue::Act::kName + accumulation_suffix() + schedule_suffix();
  }

  /// "" for the atom's default accumulation; "_fastacc" for FastAccumulation, "_promote<K>" for
  /// another PromoteEvery<K> (two configs that differ only there get different names). The
  /// configured mode: Blockwise scales promote once per K block whatever it says.
  static std::string accumulation_suffix() {
    if constexpr (Config::kPromoteK == Policy::Atom::kDefaultPromoteK)
      return "";
    else if constexpr (Config::kPromoteK == 0)
      return "_fastacc";
    else
      return "_promote" + std::to_string(Config::kPromoteK);
  }

  /// "_pingpong" for the WGMMA kernel's ping-pong schedule, "_mcA" / "_mcB" for its 2-CTA
  /// clusters sharing A / B (TMA multicast), "_streamk" for StreamK<P>, else nothing.
  static std::string schedule_suffix() {
    if constexpr (IsWgmmaPolicy<Policy>::value)
      return std::string(Policy::kScheduleSuffix) + Policy::kMulticastSuffix +
             (IsStreamK<Policy>::value ? "_streamk" : "");
    else
      return "";
  }

  /// The scale arrays run() expects, Scale[rows][cols] row-major (quant/granularity.hpp):
  /// scale_a_count = scale_shape_a(m, k).size(), scale_b_count = scale_shape_b(n, k).size().
  /// (Blockwise scale_a may be K-block-major instead: Arguments::scale_a_ld.)
  ///   PerTensor             A {1, 1}                         B {1, 1}
  ///   PerChannel            A {M, 1}                         B {N, 1}
  ///   Blockwise<bm, bn, bk> A {ceil(M / bm), ceil(K / bk)}   B {ceil(N / bn), ceil(K / bk)}
  ///   Mx32 (Scale = e8m0)   A {M, ceil(K / 32)}              B {N, ceil(K / 32)}
  static ScaleShape scale_shape_a(std::int64_t m, std::int64_t k) {
    return scale_shape<Granularity>(Operand::kA, m, k);
  }
  static ScaleShape scale_shape_b(std::int64_t n, std::int64_t k) {
    return scale_shape<Granularity>(Operand::kB, n, k);
  }

  /// Bytes of workspace `run` needs (0 unless split_k > 1 or StreamK<P>: then sized by the
  /// current device's SM count, so ask on the device that runs it).
  /// SIZE_MAX when the size does not fit a size_t (can_implement refuses such arguments anyway).
  static std::size_t workspace_size(Arguments const& args) {
    ProblemShape const& pr = args.problem;
    if constexpr (kStreamK) return Kernel::stream_k_workspace_bytes(stream_k_ctas(args));
    if (args.split_k <= 1 || pr.m < 1 || pr.n < 1) return 0;
    std::size_t const per_split = std::size_t(pr.m) * std::size_t(pr.n) * sizeof(float);  // < 2^64
    if (per_split > SIZE_MAX / std::size_t(args.split_k)) return SIZE_MAX;
    return std::size_t(args.split_k) * per_split;
  }

  /// A StreamK<P> policy: the persistent WGMMA kernel with stream-K's walk (kernel/stream_k.hpp).
  static constexpr bool kStreamK = IsWgmmaPolicy<Policy>::value && IsStreamK<Policy>::value;
  /// The CTAs a stream-K launch runs (the scheduler's initialize), for the workspace's size; an
  /// upper bound where the device cannot be asked (run then fails on the same question).
  static int stream_k_ctas(Arguments const& args) {
    using Scheduler = typename Kernel::TileScheduler;
    int sms = 0;
    if (!Scheduler::usable_sms(kernel_arguments(args).scheduler, &sms).ok() || sms < 1) sms = 1024;
    return Scheduler::stream_k_grid(args.problem, sms);
  }

  /// Every precondition of run(), checked on the host; the message names the one that failed.
  /// The problem's shape here; then the kernel's layers (Kernel::can_implement: mainloop, epilogue,
  /// tile scheduler), then the scales, the split-K reduction and workspace, and the device.
  [[nodiscard]] static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    ProblemShape const& pr = args.problem;
    if (pr.m < 1 || pr.n < 1 || pr.k < 1)
      return fail(StatusCode::kErrorInvalidSize,
                  "M, N and K must be >= 1 (got M=" + std::to_string(pr.m) +
                      ", N=" + std::to_string(pr.n) + ", K=" + std::to_string(pr.k) + ")");
    if (pr.l != 1)
      return fail(StatusCode::kErrorInvalidSize,
                  "Gemm computes one GEMM: problem.l must be 1 (got " + std::to_string(pr.l) + ")");
    // Tile origins plus an in-tile offset (m0 + row, k0 + k) are int: keep them below 2^31.
    if (pr.m > INT32_MAX - Policy::kBlockM || pr.n > INT32_MAX - Policy::kBlockN ||
        pr.k > INT32_MAX - Policy::kBlockK)
      return fail(StatusCode::kErrorInvalidSize,
                  "M, N and K must be at most 2^31 - 1 minus the block tile (" +
                      std::to_string(Policy::kBlockM) + " x " + std::to_string(Policy::kBlockN) +
                      " x " + std::to_string(Policy::kBlockK) +
                      ") so that tile indices fit in int; got M=" + std::to_string(pr.m) +
                      ", N=" + std::to_string(pr.n) + ", K=" + std::to_string(pr.k));
    if constexpr (!IsWgmmaPolicy<Policy>::value) {
      if (args.sm_count != 0)
        return fail(StatusCode::kErrorUnsupported,
                    "sm_count applies to the persistent WGMMA kernel (Sm90Wgmma* policies) only; "
                    "this portable policy launches one workgroup per tile: leave it 0");
    }
    ScaleShape const sa = scale_shape_a(pr.m, pr.k);
    ScaleShape const sb = scale_shape_b(pr.n, pr.k);
    if (args.scale_a_ld != 0) {
      if constexpr (!IsBlockwise<Granularity>::value)
        return fail(StatusCode::kErrorScaleShape,
                    std::string("scale_a_ld (a K-block-major scale_a) is for Blockwise scales; ") +
                        Granularity::kName + " takes scale_a as laid out above: leave it 0");
      if ((args.scale_a_ld < sa.rows) || (args.scale_a_ld > INT32_MAX))
        return fail(StatusCode::kErrorScaleShape,
                    "scale_a_ld: K-block-major scale_a (K block kb of scale row r at kb * "
                    "scale_a_ld + r) needs scale_a_ld >= its " +
                        std::to_string(sa.rows) + " rows and below 2^31; got " +
                        std::to_string(args.scale_a_ld) + " (0: row-major)");
    }
    FP8GEMM_RETURN_IF_ERROR(Kernel::can_implement(kernel_arguments(args)));
    if (args.scale_a == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_a is null");
    if (args.scale_b == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_b is null");
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.scale_a, alignof(Scale), "scale_a",
                                          std::string(element_name<Scale>()) + " loads"));
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.scale_b, alignof(Scale), "scale_b",
                                          std::string(element_name<Scale>()) + " loads"));
    if (args.scale_a_ld != 0) {
      std::int64_t const span = (sa.cols - 1) * args.scale_a_ld + sa.rows;
      if (args.scale_a_count < span)
        return fail(StatusCode::kErrorScaleShape,
                    std::string(Granularity::kName) + " scale_a, K-block-major with scale_a_ld " +
                        std::to_string(args.scale_a_ld) + ": its " + std::to_string(sa.cols) +
                        " K blocks of " + std::to_string(sa.rows) + " rows reach " +
                        std::to_string(span) + " values, scale_a_count is " +
                        std::to_string(args.scale_a_count));
    } else if (args.scale_a_count != sa.size())
      return fail(
          StatusCode::kErrorScaleShape,
          std::string(Granularity::kName) + " scale_a: expected " + std::to_string(sa.rows) +
              " x " + std::to_string(sa.cols) + " = " + std::to_string(sa.size()) +
              " values, got " + std::to_string(args.scale_a_count) +
              " (Gemm::scale_shape_a(M, K) gives the shape; " + element_name<Scale>() + " values)");
    if (args.scale_b_count != sb.size())
      return fail(
          StatusCode::kErrorScaleShape,
          std::string(Granularity::kName) + " scale_b: expected " + std::to_string(sb.rows) +
              " x " + std::to_string(sb.cols) + " = " + std::to_string(sb.size()) +
              " values, got " + std::to_string(args.scale_b_count) +
              " (Gemm::scale_shape_b(N, K) gives the shape; " + element_name<Scale>() + " values)");
    std::int64_t const max_reduce_blocks = Policy::Arch::max_blocks_x(ReduceKernel::kThreads);
    if (args.split_k > 1 && ReduceKernel::blocks(pr) > max_reduce_blocks)
      return fail(StatusCode::kErrorInvalidSize,
                  "split-K reduction of M x N = " + std::to_string(std::int64_t(pr.m) * pr.n) +
                      " outputs needs more than " + std::to_string(max_reduce_blocks) +
                      " workgroups of " + std::to_string(ReduceKernel::kThreads) +
                      " threads; use split_k = 1");
    if (args.split_k > 1 &&
        args.workspace == nullptr)  // after the size checks: workspace_size fits
      return fail(StatusCode::kErrorNullPointer,
                  "split_k > 1 needs a workspace of workspace_size(args) = " +
                      std::to_string(workspace_size(args)) + " bytes");
    if (args.split_k > 1)
      FP8GEMM_RETURN_IF_ERROR(check_aligned(args.workspace, alignof(float), "the split-K workspace",
                                            "FP32 partial sums"));
    if constexpr (kStreamK) {
      if (args.workspace == nullptr)
        return fail(StatusCode::kErrorNullPointer,
                    "StreamK<P> needs a workspace of workspace_size(args) = " +
                        std::to_string(workspace_size(args)) + " bytes");
      FP8GEMM_RETURN_IF_ERROR(
          check_aligned(args.workspace, 16, "the stream-K workspace",
                        "flags and FP32 partial sums, stored 16 bytes at a time"));
    }
    return arch::check_target<typename Policy::Arch>();
  }

  /// Checks, then launches on `stream` (ignored by the host emulator, which runs synchronously).
  [[nodiscard]] static Status run(Arguments const& args, gpuStream_t stream = nullptr) {
    FP8GEMM_RETURN_IF_ERROR(can_implement(args));
    typename Config::Params p;
    FP8GEMM_RETURN_IF_ERROR(
        Kernel::initialize(kernel_arguments(args), static_cast<float*>(args.workspace), p));
    if (args.epilogue.amax != nullptr)
      FP8GEMM_RETURN_IF_ERROR(arch::zero_bytes(args.epilogue.amax, sizeof(float), stream));
    // stream-K's flags (the slots are written before they are read), where a tile is cut: whole
    // waves alone (whole_tiles = every tile) raise and read none
    if constexpr (kStreamK)
      if (p.scheduler.whole_tiles < p.scheduler.tiles_m * p.scheduler.tiles_n)
        FP8GEMM_RETURN_IF_ERROR(arch::zero_bytes(
            args.workspace, Kernel::stream_k_flag_bytes(p.scheduler.grid), stream));
    using Scheduler = typename Kernel::TileScheduler;
    FP8GEMM_RETURN_IF_ERROR(arch::launch<Kernel>(Scheduler::grid_x(p.scheduler),
                                                 Scheduler::grid_y(p.scheduler), p, stream));
    if (args.split_k == 1) return Status::success();
    return arch::launch<ReduceKernel>(static_cast<int>(ReduceKernel::blocks(args.problem)), 1, p,
                                      stream);
  }

  /// The kernel's parameters (for GemmBlock users: call can_implement(args) first). Portable
  /// policies only; the WGMMA kernel's parameters come from Kernel::initialize (tensor maps).
  static typename Config::Params to_params(Arguments const& args) {
    static_assert(!IsWgmmaPolicy<Policy>::value,
                  "Gemm::to_params is for the portable kernel (GemmBlock users); the TMA + WGMMA "
                  "kernel's parameters come from Kernel::initialize (tensor maps), and it has no "
                  "block-level form");
    return Kernel::to_params(kernel_arguments(args), static_cast<float*>(args.workspace));
  }

  /// The user's Arguments as the kernel's layers take them.
  static typename Kernel::Arguments kernel_arguments(Arguments const& args) {
    typename Kernel::Arguments k;
    ProblemShape const& pr = args.problem;
    bool const nk = kLayoutB == LayoutB::kNK;
    k.problem = pr;
    k.mainloop.a = {args.a, args.lda, pr.m, pr.k};
    k.mainloop.b = {args.b, args.ldb, nk ? pr.n : pr.k, nk ? pr.k : pr.n};
    k.mainloop.scale_a = {args.scale_a, scale_shape<Granularity>(Operand::kA, pr.m, pr.k).cols,
                          pr.m, args.scale_a_ld};
    k.mainloop.scale_b = {args.scale_b, scale_shape<Granularity>(Operand::kB, pr.n, pr.k).cols,
                          pr.n};
    k.epilogue.params = args.epilogue;
    k.epilogue.scale_a = k.mainloop.scale_a;
    k.epilogue.scale_b = k.mainloop.scale_b;
    k.scheduler.split_k = args.split_k;
    k.scheduler.band_m = args.band_m;
    if constexpr (IsWgmmaPolicy<Policy>::value) k.scheduler.sm_count = args.sm_count;
    return k;
  }
};

}  // namespace fp8gemm
