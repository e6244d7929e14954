// SPDX-License-Identifier: MIT
/// What every GEMM kernel shares (kernel layer): its Arguments (the problem's shape and each
/// layer's arguments), the layers' checks in order, the split-K partial store and the split-K
/// reduction kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/grouped_tile_scheduler.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// A kernel's arguments: the problem's shape, given once, and each layer's own arguments.
template <class Mainloop, class Epilogue, class TileScheduler>
struct KernelArguments {
  ProblemShape problem;
  typename Mainloop::Arguments mainloop;
  typename Epilogue::Arguments epilogue;
  typename TileScheduler::Arguments scheduler;
};

/// The layers' checks, in order: mainloop (A, B), epilogue (C), scheduler (grid, split).
template <class Mainloop, class Epilogue, class TileScheduler>
Status check_kernel_layers(KernelArguments<Mainloop, Epilogue, TileScheduler> const& args) {
  FP8GEMM_RETURN_IF_ERROR(Mainloop::can_implement(args.mainloop));
  FP8GEMM_RETURN_IF_ERROR(Epilogue::can_implement(args.problem, args.epilogue));
  return TileScheduler::can_implement(args.problem, args.scheduler);
}

/// Split-K: the raw FP32 partial sums of the tile at (m0, n0) (scaled already for K-blocked
/// granularities) into workspace[split][rows][n_total], those of rows below m_end and columns
/// below n_total (a grouped tile's rows past its group belong to the next group's tiles);
/// SplitKReduceKernel adds the splits in order and runs the
/// epilogue. acc.v is [atoms M][atoms N][registers], placed by coords.row / coords.col.
template <class Accumulators, class Coords>
FP8GEMM_DEVICE void store_split_k_rows(float* workspace, std::int64_t rows, int n_total, int m0,
                                       int n0, int m_end, int split, Accumulators const& acc,
                                       Coords const& coords) {
  using V = decltype(acc.v);
  constexpr int kAtomsM = static_cast<int>(std::extent_v<V, 0>);
  constexpr int kAtomsN = static_cast<int>(std::extent_v<V, 1>);
  constexpr int kRegs = static_cast<int>(std::extent_v<V, 2>);
  float* out = workspace + std::int64_t(split) * rows * n_total;
  FP8GEMM_UNROLL
  for (int i = 0; i < kAtomsM; ++i) {
    FP8GEMM_UNROLL
    for (int j = 0; j < kAtomsN; ++j) {
      FP8GEMM_UNROLL
      for (int r = 0; r < kRegs; ++r) {
        int const m = m0 + coords.row(i, r);
        int const n = n0 + coords.col(j, r);
        if (m < m_end && n < n_total) out[std::int64_t(m) * n_total + n] = acc.v[i][j][r];
      }
    }
  }
}
/// The dense form: workspace[split][M][N].
template <class Accumulators, class Coords>
FP8GEMM_DEVICE void store_split_k_partial(float* workspace, ProblemShape const& problem, int m0,
                                          int n0, int split, Accumulators const& acc,
                                          Coords const& coords) {
  store_split_k_rows(workspace, problem.m, problem.n, m0, n0, problem.m, split, acc, coords);
}

/// Split-K reduction: C = epilogue(sum over splits, in split order, of workspace): deterministic.
/// One thread per output element, kThreads per workgroup. Grouped kernels (kGrouped): the
/// workspace's rows are the flattened rows of A; each row inside a group gets that group's
/// epilogue (its C, bias and scales: DirectStoreEpilogue::for_group) at its row in the group, and
/// rows in no group are neither read nor stored (place_row).
template <class GemmKernelT>
struct SplitKReduceKernel {
  using Params = typename GemmKernelT::Params;
  using Arch = typename GemmKernelT::Arch;
  using Epilogue = typename GemmKernelT::Epilogue;
  static constexpr int kThreads = 256;
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr int kSharedBytes = 0;

  /// Workgroups for rows x n outputs (dense: M x N; grouped: the rows of flattened A x N).
  static std::int64_t blocks(std::int64_t rows, int n) {
    return (rows * n + kThreads - 1) / kThreads;
  }
  static std::int64_t blocks(ProblemShape const& problem) { return blocks(problem.m, problem.n); }

  FP8GEMM_DEVICE static void run(Params const& p, void*) {
    std::int64_t const idx = std::int64_t(arch::block_idx_x()) * kThreads + arch::thread_idx();
    int n = p.problem.n;
    if constexpr (GemmKernelT::kGrouped) n = p.scheduler.layout.n;
    std::int64_t const total = std::int64_t(p.problem.m) * n;
    int const row = static_cast<int>(idx / n), col = static_cast<int>(idx % n);
    auto sum = [&] {
      float s = 0.0f;
      for (int k = 0; k < p.scheduler.split_k; ++k) s += p.workspace[k * total + idx];
      return s;
    };
    float amax = 0.0f;
    if constexpr (GemmKernelT::kGrouped) {
      GroupLayout const& l = p.scheduler.layout;
      int g = 0, first = 0, local = 0;
      if (idx < total && place_row(l, row, &g, &first, &local))
        amax = Epilogue::finish_element(
            Epilogue::Direct::for_group(p.epilogue, group_offsets(l, g, first)), local, col, sum());
    } else {
      if (idx < total) amax = Epilogue::finish_element(p.epilogue, row, col, sum());
    }
    if (p.epilogue.params.amax != nullptr && idx < total)
      arch::atomic_max_nonnegative(p.epilogue.params.amax, amax);
  }
};

}  // namespace fp8gemm
