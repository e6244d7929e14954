// SPDX-License-Identifier: MIT
/// The persistent warp-specialized GEMM kernel (kernel layer), Hopper's TMA + WGMMA path: one CTA
/// per SM walks output tiles (persistent tile scheduler); warpgroup 0 produces (TMA into the
/// shared-memory ring), the consumer warpgroups multiply (wgmma) and run the epilogue straight
/// from their registers while the producer already loads the next tile.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/tile_scheduler.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// Kernel<Mainloop, Epilogue, TileScheduler> with the contract of GemmKernel (Arguments,
/// can_implement, Params, run) plus initialize(): its Params hold tensor maps and the SM count,
/// which take host calls that can fail.
template <class MainloopT, class EpilogueT, class TileSchedulerT>
struct WarpSpecializedGemmKernel {
  using Mainloop = MainloopT;
  using Epilogue = EpilogueT;
  using TileScheduler = TileSchedulerT;
  using Policy = typename Mainloop::Policy;
  using Arch = typename Mainloop::Arch;
  using Accumulators = typename Mainloop::Accumulators;
  using SharedStorage = typename Mainloop::SharedStorage;
  static constexpr int kThreads = Mainloop::kThreads;  // producer + consumer warpgroups
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr int kMinBlocksPerSm = Mainloop::kMinBlocksPerSm;
  // dynamic shared memory is only 16-byte aligned: room to align the ring to 1024 bytes
  static constexpr int kSharedBytes =
      static_cast<int>(sizeof(SharedStorage)) + Arch::kSmemAlignment;

  struct Arguments {
    typename Mainloop::Arguments mainloop;
    typename Epilogue::Arguments epilogue;
    typename TileScheduler::Arguments scheduler;
  };
  struct Params {
    typename Mainloop::Params mainloop;
    typename Epilogue::Arguments epilogue;
    typename TileScheduler::Params scheduler;
    float* workspace = nullptr;  // unused (no split-K)
  };

  /// The layers' checks, in order: mainloop (A, B, tensor maps), epilogue (C), scheduler.
  static Status can_implement(Arguments const& args) {
    FP8GEMM_RETURN_IF_ERROR(Mainloop::can_implement(args.mainloop));
    FP8GEMM_RETURN_IF_ERROR(Epilogue::can_implement(args.epilogue));
    return TileScheduler::can_implement(args.scheduler);
  }

  /// Params from checked Arguments: tensor maps (driver) and the grid (SM count).
  static Status initialize(Arguments const& args, float* workspace, Params& p) {
    FP8GEMM_RETURN_IF_ERROR(Mainloop::to_params(args.mainloop, p.mainloop));
    p.epilogue = Epilogue::to_params(args.epilogue);
    FP8GEMM_RETURN_IF_ERROR(TileScheduler::initialize(args.scheduler, p.scheduler));
    p.workspace = workspace;
    return Status::success();
  }

  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    // the ring at the first 1024-byte boundary of dynamic shared memory (kSharedBytes has room)
    auto const raw = reinterpret_cast<std::uintptr_t>(shared);
    std::uint32_t const misalign = arch::smem_address(shared) % Arch::kSmemAlignment;
    auto& s = *reinterpret_cast<SharedStorage*>(raw + (Arch::kSmemAlignment - misalign) %
                                                          Arch::kSmemAlignment);
    int const tid = arch::thread_idx();
    int const warpgroup = tid / Arch::kWarpgroupThreads;
    if (tid == 0) Mainloop::init(s, p.mainloop);
    arch::sync_block();  // waits for: the ring's barriers initialized

    int const tiles = TileScheduler::tiles(p.scheduler);
    int const stride = arch::grid_dim_x();
    typename Mainloop::Position pos;  // this thread's place in the ring, across tiles
    if (warpgroup == 0) {             // producer
      if constexpr (Policy::kConsumers > 1) arch::setmaxnreg_dec<Policy::kProducerRegisters>();
      if (tid < Arch::kWaveSize && arch::elect_one_sync()) {  // one thread of warp 0
        for (int w = arch::block_idx_x(); w < tiles; w += stride) {
          TileCoord const t = TileScheduler::tile(p.scheduler, w);
          Mainloop::load(p.mainloop, s, pos, t.m * Policy::kBlockM, t.n * Policy::kBlockN);
        }
      }
    } else {  // consumers
      // waits for: the registers the producer gave back (setmaxnreg.inc blocks until free)
      if constexpr (Policy::kConsumers > 1) arch::setmaxnreg_inc<Policy::kConsumerRegisters>();
      auto const coords = Mainloop::Coords::current();
      for (int w = arch::block_idx_x(); w < tiles; w += stride) {
        TileCoord const t = TileScheduler::tile(p.scheduler, w);
        int const m0 = t.m * Policy::kBlockM, n0 = t.n * Policy::kBlockN;
        Accumulators acc;
        acc.clear();
        Mainloop::multiply(p.mainloop, s, pos, m0, n0, coords, acc);
        Epilogue::store(p.epilogue, m0, n0, acc, coords);
      }
    }
  }
};

}  // namespace fp8gemm
