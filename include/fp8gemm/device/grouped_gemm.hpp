// SPDX-License-Identifier: MIT
/// GroupedGemm: G GEMMs of one N and K in one launch (device layer): mixture-of-experts layers
/// (contiguous or masked groups, sizes on the device) and batched GEMMs. Arguments ->
/// can_implement (every refusal explained) -> workspace_size -> run(args, stream); counts_status
/// reports a bad group size found on the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/device/gemm.hpp"
#include "fp8gemm/epilogue/direct_store_epilogue.hpp"
#include "fp8gemm/kernel/gemm_config.hpp"
#include "fp8gemm/kernel/grouped_tile_scheduler.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// The grouped kernel of a GemmConfig: the config's mainloop and epilogue (which stores a tile
/// with its group's C, bias and scales: store_group; TMA stores for tiles whole inside their
/// group) and the grouped tile scheduler, persistent on the WGMMA kernel.
template <class Config>
struct GroupedKernelPieces {
  using Policy = typename Config::Policy;
  static constexpr bool kWgmma = IsWgmmaPolicy<Policy>::value;
  using Mainloop = typename Config::Mainloop;
  using CollectiveEpilogue = typename Config::CollectiveEpilogue;
  using TileScheduler = GroupedTileScheduler<Policy, kWgmma>;
  using Kernel =
      std::conditional_t<kWgmma,
                         WarpSpecializedGemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>,
                         GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>>;
  using CountsKernel = GroupCountsKernel<typename Policy::Arch, Policy::kBlockM>;
};

/// GroupedGemm's arguments (the same type for every config with these element types, so that a
/// selecting wrapper passes them to whichever it picks).
template <class ElementA, class ElementB, class Scale, class EpilogueParams>
struct GroupedArguments {
  GroupMode mode = GroupMode::kContiguous;
  /// m: contiguous: rows of A and C (the groups' rows lie in [0, m)); masked: capacity (rows per
  /// group of A and C); batched: M. n, k: every group's. l: G, the number of groups (>= 1).
  ProblemShape problem;
  ElementA const* a = nullptr;  // contiguous [m, K]; masked / batched [G][m, K], lda >= K
  std::int64_t lda = 0;
  std::int64_t stride_a = 0;    // masked / batched: elements from group to group; 0: m · lda
  ElementB const* b = nullptr;  // [G][N, K], ldb >= K
  std::int64_t ldb = 0;
  std::int64_t stride_b = 0;      // elements from group to group; 0: N · ldb
  int const* offs = nullptr;      // contiguous, device: [G] inclusive ends of the groups' rows
  int const* masked_m = nullptr;  // masked, device: [G] rows of each group (<= m)
  Scale const* scale_a = nullptr;
  std::int64_t scale_a_count = 0;  // = scale_count_a(args) (checked)
  Scale const* scale_b = nullptr;
  std::int64_t scale_b_count = 0;  // = scale_count_b(args) (checked)
  EpilogueParams epilogue{};       // c, ldc, bias [G, N], output_scale (fp8 C), amax
  std::int64_t stride_c = 0;       // masked / batched: elements from group to group; 0: m · ldc
  void* workspace = nullptr;       // workspace_size(args) bytes (contiguous, masked, split-K)
  int band_m = 0;                  // raster band height; 0: the scheduler's choice
  int sm_count = 0;                // WGMMA: > 0 runs on at most that many SMs
  /// > 1: each tile's K split over that many work items (few tiles on many SMs), their FP32
  /// partial sums added in split order by a second kernel (deterministic), which then runs the
  /// epilogue; the workspace holds them (split_k · rows of A · N floats). At most the K blocks,
  /// ceil(K / BlockK).
  int split_k = 1;
  /// Blockwise: > 0 takes A's scales K-block-major, K block kb of (flattened) scale row r at
  /// scale_a[kb * scale_a_ld + r] (torch's column-major (rows, K/128)), scale_a_ld >= the scale
  /// rows and scale_a_count >= (K blocks - 1) * scale_a_ld + scale rows; 0: row-major. On the
  /// Hopper kernels these scales go through the scale ring where the kernel has one
  /// (Gemm::Arguments::scale_a_ld).
  std::int64_t scale_a_ld = 0;
};

/// C_g = epilogue((s_a (x) s_b) * (A_g B_g)) for groups g = 0 .. G - 1 of one N and K, B [G, N, K]
/// (K contiguous). Config is a GemmConfig with LayoutB::kNK; WGMMA policies without clusters.
///
/// Scales follow the operands' rows, A's and B's rows of all groups read as one flattened matrix
/// (A: contiguous rows [0, M); masked / batched group g's row r at g · stride_a / lda + r; B: group
/// g's row n at g · stride_b / ldb + n):
///   PerTensor             A: 1 (shared) or G values       B: G values
///   PerChannel            A: one per flattened row of A   B: one per flattened row of B
///   Blockwise<bm, bn, bk> A: [ceil(rows / bm), ceil(K / bk)] over the flattened rows, likewise B;
///                         a group's first row must start a block (contiguous: bm = 1)
///   Mx32                  A: [rows, ceil(K / 32)], B likewise
/// The bias, if given, is [G, N] (one row per group). amax, if given, is over every group.
template <class Config>
class GroupedGemm {
 public:
  using Policy = typename Config::Policy;
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  using Granularity = typename Config::Granularity;
  using Pieces = GroupedKernelPieces<Config>;
  using Kernel = typename Pieces::Kernel;
  using CountsKernel = typename Pieces::CountsKernel;
  using ReduceKernel = SplitKReduceKernel<Kernel>;
  using EpilogueParams = typename Config::Epilogue::Params;
  static_assert(Config::kLayoutB == LayoutB::kNK,
                "GroupedGemm: B is [G, N, K] with K contiguous (LayoutB::kNK), as torch's "
                "grouped GEMM and DeepGEMM take it");
  static_assert(arch::kernel_cluster_size<Policy>::value == 1,
                "GroupedGemm: the 2-CTA multicast policies pair tiles that may lie in two groups; "
                "use an unclustered policy");

  /// GroupedArguments (above): one type for every config with these element types.
  using Arguments = GroupedArguments<ElementA, ElementB, Scale, EpilogueParams>;

  static std::string name() { return "grouped_" + Gemm<Config>::name(); }

  static int groups(Arguments const& args) { return args.problem.l; }
  static std::int64_t stride_a(Arguments const& args) {
    return args.stride_a != 0 ? args.stride_a : std::int64_t(args.problem.m) * args.lda;
  }
  static std::int64_t stride_b(Arguments const& args) {
    return args.stride_b != 0 ? args.stride_b : std::int64_t(args.problem.n) * args.ldb;
  }
  static std::int64_t stride_c(Arguments const& args) {
    return args.stride_c != 0 ? args.stride_c : std::int64_t(args.problem.m) * args.epilogue.ldc;
  }
  /// Rows of the flattened operands: A's (contiguous m; else (G - 1) · stride_a / lda + m) and
  /// B's ((G - 1) · stride_b / ldb + N); meaningful once the strides are multiples of lda, ldb.
  static std::int64_t a_group_rows(Arguments const& args) {
    return args.lda > 0 ? stride_a(args) / args.lda : 0;
  }
  static std::int64_t b_group_rows(Arguments const& args) {
    return args.ldb > 0 ? stride_b(args) / args.ldb : 0;
  }
  static std::int64_t flat_rows_a(Arguments const& args) {
    if (args.mode == GroupMode::kContiguous) return args.problem.m;
    return std::int64_t(groups(args) - 1) * a_group_rows(args) + args.problem.m;
  }
  static std::int64_t flat_rows_b(Arguments const& args) {
    return std::int64_t(groups(args) - 1) * b_group_rows(args) + args.problem.n;
  }

  /// The scale counts can_implement expects (the table above; K-block-major A scales: the least
  /// their layout reaches, and any count above it).
  static std::int64_t scale_count_a(Arguments const& args) {
    if constexpr (std::is_same_v<Granularity, PerTensor>) {
      return args.scale_a_count == groups(args) ? groups(args) : 1;  // either form
    } else {
      ScaleShape const sa =
          scale_shape<Granularity>(Operand::kA, flat_rows_a(args), args.problem.k);
      if (args.scale_a_ld == 0) return sa.size();
      std::int64_t const span = (sa.cols - 1) * args.scale_a_ld + sa.rows;
      return args.scale_a_count >= span ? args.scale_a_count : span;
    }
  }
  static std::int64_t scale_count_b(Arguments const& args) {
    if constexpr (std::is_same_v<Granularity, PerTensor>)
      return groups(args);
    else
      return scale_shape<Granularity>(Operand::kB, flat_rows_b(args), args.problem.k).size();
  }

  /// Bytes of workspace: the groups' tile-row prefix and the status words (contiguous and masked;
  /// batched needs none), then, with split_k > 1, 256-byte aligned, the partial sums
  /// [split_k][rows of A][N] in FP32 (SIZE_MAX if that overflows).
  static std::size_t workspace_size(Arguments const& args) {
    std::size_t const counts = counts_bytes(args);
    if (args.split_k <= 1 || args.problem.m < 1 || args.problem.n < 1 || groups(args) < 1)
      return counts;
    std::size_t const rows = static_cast<std::size_t>(flat_rows_a(args));
    std::size_t const per_split = rows * std::size_t(args.problem.n) * sizeof(float);
    if (rows > SIZE_MAX / std::size_t(args.problem.n) / sizeof(float) ||
        per_split > (SIZE_MAX - 1024) / std::size_t(args.split_k))
      return SIZE_MAX;
    return partials_offset(args) + std::size_t(args.split_k) * per_split;
  }

  [[nodiscard]] static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    ProblemShape const& pr = args.problem;
    std::string const mode = group_mode_name(args.mode);
    if (pr.l < 1)
      return fail(
          StatusCode::kErrorInvalidSize,
          "problem.l is the number of groups and must be >= 1; got " + std::to_string(pr.l));
    if (pr.m < 0 || pr.n < 1 || pr.k < 1)
      return fail(StatusCode::kErrorInvalidSize,
                  "M must be >= 0, N and K >= 1 (got M=" + std::to_string(pr.m) +
                      ", N=" + std::to_string(pr.n) + ", K=" + std::to_string(pr.k) + ")");
    if (!Pieces::kWgmma && args.sm_count != 0)
      return fail(StatusCode::kErrorUnsupported,
                  "sm_count applies to the persistent WGMMA kernel (Sm90Wgmma* policies) only; "
                  "this policy launches one workgroup per tile: leave it 0");
    if (args.mode == GroupMode::kContiguous && args.offs == nullptr)
      return fail(StatusCode::kErrorNullPointer,
                  "contiguous groups need offs: the groups' inclusive row ends, [G] int32 on the "
                  "device");
    if (args.mode == GroupMode::kMasked && args.masked_m == nullptr)
      return fail(StatusCode::kErrorNullPointer,
                  "masked groups need masked_m: each group's rows, [G] int32 on the device");
    if (args.mode != GroupMode::kContiguous && args.offs != nullptr)
      return fail(StatusCode::kErrorInvalidArgument,
                  "offs is for contiguous groups; this call is " + mode + ": leave it null");
    if (args.mode != GroupMode::kMasked && args.masked_m != nullptr)
      return fail(StatusCode::kErrorInvalidArgument,
                  "masked_m is for masked groups; this call is " + mode + ": leave it null");
    if (args.lda < 1 || args.ldb < 1)
      return fail(StatusCode::kErrorLeadingDimension,
                  "lda and ldb must be >= K (" + std::to_string(pr.k) + "); got lda=" +
                      std::to_string(args.lda) + ", ldb=" + std::to_string(args.ldb));
    if (args.mode == GroupMode::kContiguous && (args.stride_a != 0 || args.stride_c != 0))
      return fail(StatusCode::kErrorInvalidArgument,
                  "stride_a and stride_c are for masked and batched groups; contiguous groups are "
                  "rows of one A and one C: leave them 0");
    if (args.mode != GroupMode::kContiguous &&
        (stride_a(args) % args.lda != 0 || stride_a(args) < std::int64_t(pr.m) * args.lda))
      return fail(StatusCode::kErrorInvalidArgument,
                  "stride_a (" + std::to_string(stride_a(args)) + ") must be a multiple of lda (" +
                      std::to_string(args.lda) +
                      ") and at least m · lda = " + std::to_string(std::int64_t(pr.m) * args.lda) +
                      ": the groups of A are read as one matrix of rows");
    if (stride_b(args) % args.ldb != 0 || stride_b(args) < std::int64_t(pr.n) * args.ldb)
      return fail(StatusCode::kErrorInvalidArgument,
                  "stride_b (" + std::to_string(stride_b(args)) + ") must be a multiple of ldb (" +
                      std::to_string(args.ldb) +
                      ") and at least N · ldb = " + std::to_string(std::int64_t(pr.n) * args.ldb) +
                      ": the groups of B are read as one matrix of rows");
    if (args.mode != GroupMode::kContiguous &&
        stride_c(args) < std::int64_t(pr.m) * args.epilogue.ldc)
      return fail(StatusCode::kErrorInvalidArgument,
                  "stride_c (" + std::to_string(stride_c(args)) + ") must be at least m · ldc = " +
                      std::to_string(std::int64_t(pr.m) * args.epilogue.ldc));
    // tile origins plus an in-tile offset are int in the flattened operands (the rows between
    // groups first, so that the products below stay in int64)
    if (a_group_rows(args) > INT32_MAX || b_group_rows(args) > INT32_MAX ||
        flat_rows_a(args) > INT32_MAX - Policy::kBlockM ||
        flat_rows_b(args) > INT32_MAX - Policy::kBlockN || pr.k > INT32_MAX - Policy::kBlockK)
      return fail(StatusCode::kErrorInvalidSize,
                  "the groups' rows of A (" + std::to_string(flat_rows_a(args)) + ") and of B (" +
                      std::to_string(flat_rows_b(args)) +
                      "), and K, must stay below 2^31 - 1 minus the block tile");
    if (args.scale_a_ld != 0) {
      if constexpr (!IsBlockwise<Granularity>::value)
        return fail(StatusCode::kErrorScaleShape,
                    std::string("scale_a_ld (a K-block-major scale_a) is for Blockwise scales; ") +
                        Granularity::kName + " takes scale_a as laid out above: leave it 0");
      std::int64_t const rows = scale_shape<Granularity>(Operand::kA, flat_rows_a(args), pr.k).rows;
      if (rows > args.scale_a_ld || args.scale_a_ld > INT32_MAX)
        return fail(StatusCode::kErrorScaleShape,
                    "scale_a_ld: K-block-major scale_a (K block kb of scale row r at kb * "
                    "scale_a_ld + r) needs scale_a_ld >= its " +
                        std::to_string(rows) + " rows (of A's " +
                        std::to_string(flat_rows_a(args)) +
                        " rows, every group's) and below 2^31; got " +
                        std::to_string(args.scale_a_ld) + " (0: row-major)");
    }
    if constexpr (Granularity::kBlockK > 0 && !std::is_same_v<Granularity, Mx32>) {
      constexpr int kBm = Granularity::kABlockM, kBn = Granularity::kBBlockN;
      if (args.mode == GroupMode::kContiguous && kBm != 1)
        return fail(StatusCode::kErrorUnsupported,
                    "contiguous groups start at any row, so A's scale blocks must be one row tall "
                    "(Blockwise<1, ...>); this config has " +
                        std::to_string(kBm) + "-row blocks");
      if (args.mode != GroupMode::kContiguous && a_group_rows(args) % kBm != 0)
        return fail(StatusCode::kErrorInvalidArgument,
                    "each group of A must start a scale block: stride_a / lda (" +
                        std::to_string(a_group_rows(args)) + " rows) must be a multiple of " +
                        std::to_string(kBm));
      if (b_group_rows(args) % kBn != 0)
        return fail(StatusCode::kErrorInvalidArgument,
                    "each group of B must start a scale block: stride_b / ldb (" +
                        std::to_string(b_group_rows(args)) + " rows; N when dense) must be a " +
                        "multiple of the scale block's " + std::to_string(kBn) + " rows");
    }
    if (args.split_k < 1)
      return fail(
          StatusCode::kErrorInvalidArgument,
          "split_k must be >= 1 (1: every tile whole); got " + std::to_string(args.split_k));
    if (pr.m == 0) return check_empty(args);  // no rows: nothing to multiply
    FP8GEMM_RETURN_IF_ERROR(Kernel::Mainloop::can_implement(kernel_arguments(args).mainloop));
    FP8GEMM_RETURN_IF_ERROR(Kernel::Epilogue::can_implement(pr, kernel_arguments(args).epilogue));
    FP8GEMM_RETURN_IF_ERROR(Kernel::TileScheduler::can_implement(kernel_problem(args),
                                                                 kernel_arguments(args).scheduler));
    if (args.scale_a == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_a is null");
    if (args.scale_b == nullptr) return fail(StatusCode::kErrorNullPointer, "scale_b is null");
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.scale_a, alignof(Scale), "scale_a",
                                          std::string(element_name<Scale>()) + " loads"));
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.scale_b, alignof(Scale), "scale_b",
                                          std::string(element_name<Scale>()) + " loads"));
    std::string const per_tensor_a =
        std::is_same_v<Granularity, PerTensor> ? " (1 or G)"
        : args.scale_a_ld != 0
            ? " or more (K-block-major, scale_a_ld " + std::to_string(args.scale_a_ld) + ")"
            : "";
    if (args.scale_a_count != scale_count_a(args))
      return fail(StatusCode::kErrorScaleShape,
                  std::string(Granularity::kName) + " scale_a: expected " +
                      std::to_string(scale_count_a(args)) + per_tensor_a + " values over " +
                      std::to_string(flat_rows_a(args)) + " rows of A, got " +
                      std::to_string(args.scale_a_count) + " (GroupedGemm::scale_count_a)");
    if (args.scale_b_count != scale_count_b(args))
      return fail(StatusCode::kErrorScaleShape,
                  std::string(Granularity::kName) + " scale_b: expected " +
                      std::to_string(scale_count_b(args)) + " values over " +
                      std::to_string(flat_rows_b(args)) + " rows of B, got " +
                      std::to_string(args.scale_b_count) + " (GroupedGemm::scale_count_b)");
    if (args.split_k > 1) {
      std::int64_t const max_blocks = Policy::Arch::max_blocks_x(ReduceKernel::kThreads);
      if (workspace_size(args) == SIZE_MAX ||
          ReduceKernel::blocks(flat_rows_a(args), pr.n) > max_blocks)
        return fail(StatusCode::kErrorInvalidSize,
                    "split-K over " + std::to_string(flat_rows_a(args)) +
                        " rows of A x N = " + std::to_string(pr.n) + " outputs needs more than " +
                        std::to_string(max_blocks) + " reduction workgroups of " +
                        std::to_string(ReduceKernel::kThreads) +
                        " threads (or its workspace overflows): use split_k = 1");
    }
    if (workspace_size(args) > 0 && args.workspace == nullptr)
      return fail(StatusCode::kErrorNullPointer,
                  mode + " groups" + (args.split_k > 1 ? " with split_k > 1" : "") +
                      " need a workspace of workspace_size(args) = " +
                      std::to_string(workspace_size(args)) + " bytes (" +
                      (counts_bytes(args) > 0
                           ? "the groups' tile counts and a status, written on the device"
                           : "") +
                      (counts_bytes(args) > 0 && args.split_k > 1 ? "; " : "") +
                      (args.split_k > 1 ? "the splits' FP32 partial sums" : "") + ")");
    FP8GEMM_RETURN_IF_ERROR(check_aligned(args.workspace, alignof(int), "the workspace",
                                          "int32 tile counts and FP32 partial sums"));
    return arch::check_target<typename Policy::Arch>();
  }

  /// Checks, then launches on `stream`: the counts kernel (contiguous, masked), then the GEMM. A
  /// bad group size is found on the device: nothing runs, and counts_status says which.
  [[nodiscard]] static Status run(Arguments const& args, gpuStream_t stream = nullptr) {
    FP8GEMM_RETURN_IF_ERROR(can_implement(args));
    if (args.epilogue.amax != nullptr)  // the max over no outputs is 0
      FP8GEMM_RETURN_IF_ERROR(arch::zero_bytes(args.epilogue.amax, sizeof(float), stream));
    if (args.problem.m == 0) {  // no rows (an expert-parallel rank with no tokens): the counts only
      if (args.mode == GroupMode::kBatched) return Status::success();
      typename CountsKernel::Params cp;
      cp.layout = kernel_arguments(args).scheduler.layout;
      cp.status = status_words(args);
      return arch::launch<CountsKernel>(1, 1, cp, stream);
    }
    typename Kernel::Params p;
    FP8GEMM_RETURN_IF_ERROR(Kernel::initialize(kernel_arguments(args), partials(args), p));
    if (args.mode != GroupMode::kBatched) {
      typename CountsKernel::Params cp;
      cp.layout = p.scheduler.layout;
      cp.status = status_words(args);
      FP8GEMM_RETURN_IF_ERROR(arch::launch<CountsKernel>(1, 1, cp, stream));
    }
    using Scheduler = typename Kernel::TileScheduler;
    FP8GEMM_RETURN_IF_ERROR(arch::launch<Kernel>(Scheduler::grid_x(p.scheduler),
                                                 Scheduler::grid_y(p.scheduler), p, stream));
    if (args.split_k == 1) return Status::success();
    return arch::launch<ReduceKernel>(
        static_cast<int>(ReduceKernel::blocks(flat_rows_a(args), args.problem.n)), 1, p, stream);
  }

  /// What the last run's counts kernel found (after the work queued on `stream`; waits for it):
  /// success, or the first bad group size in words. Batched calls have nothing to check.
  [[nodiscard]] static Status counts_status(Arguments const& args, gpuStream_t stream = nullptr) {
    if (args.mode == GroupMode::kBatched) return Status::success();
    if (args.workspace == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, "no workspace: nothing ran");
    int w[kGroupStatusWords] = {};
    FP8GEMM_RETURN_IF_ERROR(arch::copy_to_host(w, status_words(args), sizeof w, stream));
    std::string const g = std::to_string(w[1]);
    switch (static_cast<GroupCountError>(w[0])) {
      case GroupCountError::kNone:
        return Status::success();
      case GroupCountError::kEndBeforeStart:
        return Status::error(StatusCode::kErrorInvalidArgument,
                             "offs[" + g + "] = " + std::to_string(w[2]) + " is below group " + g +
                                 "'s first row " + std::to_string(w[3]) +
                                 ": the ends must be non-decreasing and >= 0; nothing was "
                                 "computed");
      case GroupCountError::kEndPastRows:
        return Status::error(StatusCode::kErrorInvalidArgument,
                             "offs[" + g + "] = " + std::to_string(w[2]) +
                                 " is past the rows of A and C (problem.m = " +
                                 std::to_string(w[3]) + "); nothing was computed");
      case GroupCountError::kNegativeRows:
        return Status::error(
            StatusCode::kErrorInvalidArgument,
            "masked_m[" + g + "] = " + std::to_string(w[2]) + " is negative; nothing was computed");
      case GroupCountError::kRowsPastCapacity:
        return Status::error(StatusCode::kErrorInvalidArgument,
                             "masked_m[" + g + "] = " + std::to_string(w[2]) +
                                 " is past the capacity (problem.m = " + std::to_string(w[3]) +
                                 "); nothing was computed");
    }
    return Status::error(StatusCode::kErrorInvalidArgument,
                         "unknown group status " + std::to_string(w[0]));
  }

  /// The problem the kernel's layers see: the flattened operands' rows (A's as M, B's as N), K, G
  /// (the scheduler takes the groups' N and rows from its GroupLayout).
  static ProblemShape kernel_problem(Arguments const& args) {
    return {static_cast<int>(flat_rows_a(args)), static_cast<int>(flat_rows_b(args)),
            args.problem.k, args.problem.l};
  }

  /// The user's Arguments as the kernel's layers take them: flattened operand and scale views
  /// for the mainloop; the epilogue's over C (moved per group on the device); the groups.
  static typename Kernel::Arguments kernel_arguments(Arguments const& args) {
    typename Kernel::Arguments k;
    ProblemShape const& pr = args.problem;
    int const rows_a = static_cast<int>(flat_rows_a(args));
    int const rows_b = static_cast<int>(flat_rows_b(args));
    k.problem = kernel_problem(args);
    k.mainloop.a = {args.a, args.lda, rows_a, pr.k};
    k.mainloop.b = {args.b, args.ldb, rows_b, pr.k};
    k.mainloop.scale_a = {args.scale_a, scale_shape<Granularity>(Operand::kA, rows_a, pr.k).cols,
                          rows_a, args.scale_a_ld};
    k.mainloop.scale_b = {args.scale_b, scale_shape<Granularity>(Operand::kB, rows_b, pr.k).cols,
                          rows_b};
    k.epilogue.params = args.epilogue;
    k.epilogue.scale_a = k.mainloop.scale_a;
    k.epilogue.scale_b = k.mainloop.scale_b;
    GroupLayout& l = k.scheduler.layout;
    l.mode = args.mode;
    l.groups = pr.l;
    l.m = pr.m;
    l.n = pr.n;
    l.offs = args.offs;
    l.masked_m = args.masked_m;
    l.a_group_rows = args.mode == GroupMode::kContiguous ? 0 : static_cast<int>(a_group_rows(args));
    l.b_group_rows = static_cast<int>(b_group_rows(args));
    l.c_group_stride = args.mode == GroupMode::kContiguous ? 0 : stride_c(args);
    l.ldc = args.epilogue.ldc;
    bool const whole_rows = args.epilogue.ldc > 0 && stride_c(args) % args.epilogue.ldc == 0 &&
                            stride_c(args) / args.epilogue.ldc <= INT32_MAX;
    std::int64_t const c_group_rows = whole_rows ? stride_c(args) / args.epilogue.ldc : 0;
    std::int64_t const c_rows =
        args.mode == GroupMode::kContiguous ? pr.m : std::int64_t(pr.l - 1) * c_group_rows + pr.m;
    bool const c_map = (args.mode == GroupMode::kContiguous || whole_rows) && c_rows <= INT32_MAX;
    l.c_group_rows = args.mode == GroupMode::kContiguous || !c_map ? 0 : int(c_group_rows);
    l.c_rows = c_map ? int(c_rows) : 0;
    l.a_tensor_per_group = std::is_same_v<Granularity, PerTensor> && args.scale_a_count > 1;
    l.tile_rows = args.mode == GroupMode::kBatched ? nullptr : static_cast<int*>(args.workspace);
    k.scheduler.band_m = args.band_m;
    k.scheduler.sm_count = args.sm_count;
    k.scheduler.split_k = args.split_k;
    return k;
  }

 private:
  /// problem.m == 0: every group is empty; the counts must say so (checked on the device), and
  /// nothing else is read. What a call with rows would need besides the operands.
  static Status check_empty(Arguments const& args) {
    if (workspace_size(args) > 0 && args.workspace == nullptr)
      return Status::error(StatusCode::kErrorNullPointer,
                           std::string(group_mode_name(args.mode)) +
                               " groups need a workspace of workspace_size(args) = " +
                               std::to_string(workspace_size(args)) + " bytes");
    FP8GEMM_RETURN_IF_ERROR(
        check_aligned(args.workspace, alignof(int), "the workspace", "int32 tile counts"));
    return arch::check_target<typename Policy::Arch>();
  }

  static int* status_words(Arguments const& args) {
    return static_cast<int*>(args.workspace) + groups(args) + 1;
  }
  /// The workspace's parts: the counts (contiguous, masked), then the split-K partial sums.
  static std::size_t counts_bytes(Arguments const& args) {
    if (args.mode == GroupMode::kBatched || groups(args) < 1) return 0;
    return (std::size_t(groups(args)) + 1 + kGroupStatusWords) * sizeof(int);
  }
  static std::size_t partials_offset(Arguments const& args) {
    return (counts_bytes(args) + 255) / 256 * 256;
  }
  static float* partials(Arguments const& args) {
    if (args.split_k <= 1 || args.workspace == nullptr) return nullptr;
    return reinterpret_cast<float*>(static_cast<unsigned char*>(args.workspace) +
                                    partials_offset(args));
  }
};

}  // namespace fp8gemm
