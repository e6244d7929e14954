// SPDX-License-Identifier: MIT
/// The GEMM kernel as a composition (kernel layer): a tile scheduler says which output tile and K
/// range a workgroup owns, the mainloop accumulates it, the epilogue stores it; split-K partial
/// sums go through a workspace and a deterministic reduction kernel.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// Kernel<Mainloop, Epilogue, TileScheduler>: each piece brings its Arguments and can_implement;
/// the kernel's are their composition. A new mainloop (e.g. direct-to-LDS) or scheduler
/// (persistent) plugs in here with the same contract (docs/architecture.md).
template <class MainloopT, class EpilogueT, class TileSchedulerT>
struct GemmKernel {
  using Mainloop = MainloopT;
  using Epilogue = EpilogueT;
  using TileScheduler = TileSchedulerT;
  using Policy = typename Mainloop::Policy;
  using Arch = typename Mainloop::Arch;
  using Accumulators = typename Mainloop::Accumulators;
  using SharedStorage = typename Mainloop::SharedStorage;
  static constexpr int kThreads = Mainloop::kThreads;  // launch with this many threads per block
  static constexpr int kWaveSize = Arch::kWaveSize;    // 64 on CDNA, 32 on NVIDIA
  static constexpr int kSharedBytes = static_cast<int>(sizeof(SharedStorage));
  static constexpr int kMinBlocksPerSm = Mainloop::kMinBlocksPerSm;  // occupancy hint (NVIDIA)

  struct Arguments {
    typename Mainloop::Arguments mainloop;
    typename Epilogue::Arguments epilogue;
    typename TileScheduler::Arguments scheduler;
  };
  /// What the kernel receives. workspace: [split_k][M][N] FP32 partial sums when split_k > 1.
  struct Params {
    typename Mainloop::Arguments mainloop;
    typename Epilogue::Arguments epilogue;
    typename TileScheduler::Params scheduler;
    float* workspace = nullptr;
  };

  /// The layers' checks, in order: mainloop (A, B), epilogue (C), scheduler (grid, split).
  static Status can_implement(Arguments const& args) {
    FP8GEMM_RETURN_IF_ERROR(Mainloop::can_implement(args.mainloop));
    FP8GEMM_RETURN_IF_ERROR(Epilogue::can_implement(args.epilogue));
    return TileScheduler::can_implement(args.scheduler);
  }

  static Params to_params(Arguments const& args, float* workspace) {
    return Params{args.mainloop, Epilogue::to_params(args.epilogue),
                  TileScheduler::to_params(args.scheduler), workspace};
  }

  /// to_params, in the shape every kernel's host setup has (some kernels' setup can fail).
  static Status initialize(Arguments const& args, float* workspace, Params& p) {
    p = to_params(args, workspace);
    return Status::success();
  }

  /// NOTE: one mainloop call site for both paths (the store differs): with one inlined copy of the
  /// K loop per kernel instead of two, clang-22 still fully unrolls the epilogue's accumulator
  /// loops after the gfx950 buffer-load mainloop (with two copies it did not, and the
  /// accumulators went to scratch).
  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    auto& lds = *static_cast<SharedStorage*>(shared);
    auto const w = TileScheduler::work(p.scheduler);
    int const m0 = w.m * Policy::kBlockM;
    int const n0 = w.n * Policy::kBlockN;
    Accumulators acc;
    acc.clear();
    if (w.k_tile_begin < w.k_tile_end)
      Mainloop{}(p.mainloop, m0, n0, w.k_tile_begin, w.k_tile_end, lds, acc);
    if (p.scheduler.split_k == 1) {
      Epilogue::store(p.epilogue, m0, n0, acc, Mainloop::Coords::current());
    } else {
      store_partial(p, m0, n0, w.split, acc);
    }
  }

  /// C[tile] = epilogue(A[tile_m rows] * B[tile_n cols]) over K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE static void run_tile(Params const& p, int tile_m, int tile_n, int k_tile_begin,
                                      int k_tile_end, SharedStorage& lds) {
    int const m0 = tile_m * Policy::kBlockM;
    int const n0 = tile_n * Policy::kBlockN;
    Accumulators acc;
    acc.clear();
    Mainloop{}(p.mainloop, m0, n0, k_tile_begin, k_tile_end, lds, acc);
    Epilogue::store(p.epilogue, m0, n0, acc, Mainloop::Coords::current());
  }

  /// Split-K: the raw FP32 partial sums of one tile into workspace[split][m][n].
  FP8GEMM_DEVICE static void store_partial(Params const& p, int m0, int n0, int split,
                                           Accumulators const& acc) {
    int const m_total = p.epilogue.m, n_total = p.epilogue.n;
    auto const tc = Mainloop::Coords::current();
    float* out = p.workspace + std::int64_t(split) * m_total * n_total;
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Policy::Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          int const n = n0 + tc.col(j, r);
          if (m < m_total && n < n_total) out[std::int64_t(m) * n_total + n] = acc.v[i][j][r];
        }
      }
    }
  }
};

/// Split-K reduction: C = epilogue(sum over splits, in split order, of workspace): deterministic.
/// One thread per output element, kThreads per workgroup.
template <class GemmKernelT>
struct SplitKReduceKernel {
  using Params = typename GemmKernelT::Params;
  using Arch = typename GemmKernelT::Arch;
  using Epilogue = typename GemmKernelT::Epilogue;
  static constexpr int kThreads = 256;
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr int kSharedBytes = 0;

  static std::int64_t blocks(int m, int n) {
    return (std::int64_t(m) * n + kThreads - 1) / kThreads;
  }

  FP8GEMM_DEVICE static void run(Params const& p, void*) {
    std::int64_t const idx = std::int64_t(arch::block_idx_x()) * kThreads + arch::thread_idx();
    int const n = p.epilogue.n;
    std::int64_t const total = std::int64_t(p.epilogue.m) * n;
    float amax = 0.0f;
    if (idx < total) {
      float sum = 0.0f;
      for (int s = 0; s < p.scheduler.split_k; ++s) sum += p.workspace[s * total + idx];
      amax = Epilogue::finish_element(p.epilogue, static_cast<int>(idx / n),
                                      static_cast<int>(idx % n), sum);
    }
    if (p.epilogue.params.amax != nullptr && idx < total)
      arch::atomic_max_nonnegative(p.epilogue.params.amax, amax);
  }
};

}  // namespace fp8gemm
