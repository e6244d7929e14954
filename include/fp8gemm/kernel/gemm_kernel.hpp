// SPDX-License-Identifier: MIT
/// The GEMM kernel as a composition (kernel layer): a tile scheduler says which output tile and K
/// range a workgroup owns, the mainloop accumulates it, the epilogue stores it; split-K partial
/// sums go through a workspace and a deterministic reduction kernel.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/kernel_common.hpp"
#include "fp8gemm/kernel/tile_scheduler.hpp"
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
  /// A grouped scheduler (grouped_tile_scheduler.hpp): tiles of several problems in one launch.
  static constexpr bool kGrouped = is_grouped_scheduler<TileScheduler>::value;

  using Arguments = KernelArguments<Mainloop, Epilogue, TileScheduler>;
  /// What the kernel receives. workspace: [split_k][M][N] FP32 partial sums when split_k > 1.
  struct Params {
    ProblemShape problem;
    typename Mainloop::Arguments mainloop;
    typename Epilogue::Arguments epilogue;
    typename TileScheduler::Params scheduler;
    float* workspace = nullptr;
  };

  /// The layers' checks, in order: mainloop (A, B), epilogue (C), scheduler (grid, split).
  static Status can_implement(Arguments const& args) { return check_kernel_layers(args); }

  static Params to_params(Arguments const& args, float* workspace) {
    return Params{args.problem, args.mainloop, Epilogue::to_params(args.epilogue),
                  TileScheduler::to_params(args.problem, args.scheduler), workspace};
  }

  /// to_params, in the shape every kernel's host setup has (some kernels' setup can fail).
  static Status initialize(Arguments const& args, float* workspace, Params& p) {
    p = to_params(args, workspace);
    return Status::success();
  }

  /// The scheduler's work, tile by tile: mainloop, then the epilogue (or split-K's partial store).
  /// NOTE: one mainloop call site for both stores: with one inlined copy of the K loop per kernel
  /// clang-22 still fully unrolls the epilogue's accumulator loops after the gfx950 buffer-load
  /// mainloop (with two copies the accumulators went to scratch). A scheduler with one tile per
  /// workgroup gets a loop without a back edge (`break`): a loop that merely runs once compiles
  /// the CDNA K loop differently (docs/performance.md#one-tile-walk).
  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    auto& lds = *static_cast<SharedStorage*>(shared);
    TileScheduler scheduler(p.scheduler);
    while (scheduler.more()) {
      WorkTile const w = scheduler.next();
      Accumulators acc;
      acc.clear();
      // a grouped tile reads its group's rows of the flattened operands
      int const load_m0 = kGrouped ? w.load_m0 : w.m0, load_n0 = kGrouped ? w.load_n0 : w.n0;
      if (w.k_tile_begin < w.k_tile_end)
        Mainloop{}(p.mainloop, load_m0, load_n0, w.k_tile_begin, w.k_tile_end, lds, acc);
      if constexpr (kGrouped) {
        if (p.scheduler.split_k == 1)  // the group's C, bias and scales; its rows
          Epilogue::store(Epilogue::for_group(p.epilogue, w.offsets), w.bounds, w.m0, w.n0, acc,
                          Mainloop::Coords::current());
        else  // the group's rows of the workspace, by their flattened rows of A
          store_split_k_rows(p.workspace, p.problem.m, w.bounds.n_end, load_m0, w.n0,
                             w.offsets.a_row + w.bounds.m_end, w.split, acc,
                             Mainloop::Coords::current());
      } else if (p.scheduler.split_k == 1) {
        Epilogue::store(p.epilogue, OutputBounds::of(p.problem), w.m0, w.n0, acc,
                        Mainloop::Coords::current());
      } else {
        store_split_k_partial(p.workspace, p.problem, w.m0, w.n0, w.split, acc,
                              Mainloop::Coords::current());
      }
      if constexpr (TileScheduler::kOneTilePerWorkgroup) break;  // more() is false now
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
    Epilogue::store(p.epilogue, OutputBounds::of(p.problem), m0, n0, acc,
                    Mainloop::Coords::current());
  }
};

}  // namespace fp8gemm
