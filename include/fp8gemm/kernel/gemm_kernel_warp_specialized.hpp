// SPDX-License-Identifier: MIT
/// The persistent warp-specialized GEMM kernel (kernel layer), Hopper's TMA + WGMMA path: one CTA
/// per SM walks output tiles (persistent tile scheduler); warpgroup 0 produces (TMA into the
/// shared-memory ring), the consumer warpgroups multiply (wgmma) and run the epilogue (from
/// their registers, or staged in shared memory and stored by TMA: TmaStoreEpilogue) while the
/// producer already loads the next tile. Cooperative: both
/// consumers on every tile. Ping-pong: they alternate tiles, so one's epilogue runs while the
/// other multiplies; two named hand-off barriers let a consumer start on its tile only after the
/// other has waited on every stage of the tile before (the ring's parity waits need that).
/// Multicast policies run as 2-CTA clusters: the two CTAs walk the scheduler's tile pairs
/// together, their producers filling both rings (each its half of the shared operand), their
/// consumers freeing both.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/kernel_common.hpp"
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
  /// The mainloop's ring, then the epilogue's staging tiles (TmaStoreEpilogue). An epilogue
  /// without any (DirectStoreEpilogue's empty SharedStorage) adds no bytes: a policy whose ring
  /// fills the 227 KiB (Sm90WgmmaDecode<8>) still fits.
  static constexpr bool kEpilogueShared = !std::is_empty_v<typename Epilogue::SharedStorage>;
  /// A grouped scheduler (grouped_tile_scheduler.hpp): tiles of several problems in one launch.
  static constexpr bool kGrouped = is_grouped_scheduler<TileScheduler>::value;
  struct SharedWithEpilogue {
    typename Mainloop::SharedStorage mainloop;
    typename Epilogue::SharedStorage epilogue;
  };
  struct SharedMainloopOnly {
    typename Mainloop::SharedStorage mainloop;
  };
  using DenseShared = std::conditional_t<kEpilogueShared, SharedWithEpilogue, SharedMainloopOnly>;
  /// Grouped: beside each stage, the placement of the tile whose first k-block it holds (the
  /// producer finds a tile's group once; the consumers read it with the stage).
  struct GroupedShared : DenseShared {
    typename grouped_placement<TileScheduler>::type work[Policy::kStages];
  };
  using SharedStorage = std::conditional_t<kGrouped, GroupedShared, DenseShared>;
  static constexpr int kThreads = Mainloop::kThreads;  // producer + consumer warpgroups
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr int kMinBlocksPerSm = Mainloop::kMinBlocksPerSm;
  /// run() waits for the stream's previous kernel before its first global memory access
  /// (arch::grid_dependency_wait), so arch::launch launches it with programmatic stream
  /// serialization: its CTAs start (barrier setup, descriptor prefetch) while that kernel drains.
  static constexpr bool kProgrammaticLaunch = true;
  /// CTAs per cluster along grid x (arch::launch launches clusters when > 1).
  static constexpr int kClusterSize = Policy::kClusterSize;
  static_assert(TileScheduler::kClusterSize == kClusterSize,
                "WarpSpecializedGemmKernel: the tile scheduler must pair tiles for the policy's "
                "clusters");
  /// Checked tiles (Mainloop::check_tile) where the items are whole tiles or splits of K (a
  /// grouped problem's tiles: the flattened operands' rows), not stream-K's segments. In a
  /// cluster each CTA's checker walks that CTA's items (a pair's tile past the matrix is its
  /// partner's tile, TileScheduler's substitute: checked like any other, nothing of it stored).
  static constexpr bool kCheckedTiles = Mainloop::kCheckedTiles && !TileScheduler::kStreamK;
  // dynamic shared memory is only 16-byte aligned: room to align the ring to 1024 bytes
  static constexpr int kSharedBytes =
      static_cast<int>(sizeof(SharedStorage)) + Arch::kSmemAlignment;
  static_assert(kSharedBytes <= Arch::kLdsBytes,
                "WarpSpecializedGemmKernel: the ring and the epilogue's staging tiles do not fit "
                "the 227 KiB of shared memory a block may use: fewer stages");

  using Arguments = KernelArguments<Mainloop, Epilogue, TileScheduler>;
  struct Params {
    ProblemShape problem;
    typename Mainloop::Params mainloop;
    typename Epilogue::Params epilogue;
    typename TileScheduler::Params scheduler;
    float* workspace = nullptr;  // split_k > 1: [split][M][N] FP32 partial sums
  };
  /// Whether this launch checks its tiles: only calls that take the scale ring (with row-major A
  /// scales the checker's reads cost more than the vote they spare). The checker warps and the
  /// consumers both ask here, so they agree on running the flag protocol.
  FP8GEMM_DEVICE static bool checks_tiles(Params const& p) {
    return kCheckedTiles && p.mainloop.scale_ring;
  }

  /// The layers' checks, in order: mainloop (A, B, tensor maps), epilogue (C), scheduler.
  static Status can_implement(Arguments const& args) { return check_kernel_layers(args); }

  /// Params from checked Arguments: tensor maps (driver) and the grid (SM count).
  static Status initialize(Arguments const& args, float* workspace, Params& p) {
    p.problem = args.problem;
    FP8GEMM_RETURN_IF_ERROR(Mainloop::to_params(args.problem, args.mainloop, p.mainloop));
    if constexpr (kGrouped)  // C as the groups' rows, N columns
      FP8GEMM_RETURN_IF_ERROR(Epilogue::initialize(TileScheduler::epilogue_problem(args.scheduler),
                                                   args.epilogue, p.epilogue));
    else
      FP8GEMM_RETURN_IF_ERROR(Epilogue::initialize(args.problem, args.epilogue, p.epilogue));
    FP8GEMM_RETURN_IF_ERROR(TileScheduler::initialize(args.problem, args.scheduler, p.scheduler));
    if constexpr (kClusterSize > 1) {
      // persistent clusters: no more than the device holds at once (a GPC with an odd number of
      // free SMs leaves one out). NOTE: asked on every call (cudaFuncSetAttribute and
      // cudaOccupancyMaxActiveClusters), host time the unclustered policies do not spend.
      int clusters = 0;
      FP8GEMM_RETURN_IF_ERROR(arch::max_active_clusters<WarpSpecializedGemmKernel>(&clusters));
      if (clusters < 1)
        return Status::error(StatusCode::kErrorUnsupported,
                             "the device cannot hold one cluster of " +
                                 std::to_string(kClusterSize) + " CTAs of " +
                                 std::to_string(kSharedBytes) +
                                 " bytes of shared memory each (TMA multicast policy): use the "
                                 "unclustered policy");
      TileScheduler::limit_clusters(args.scheduler, p.scheduler, clusters);
    }
    p.workspace = workspace;
    return Status::success();
  }

  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    // the ring at the first 1024-byte boundary of dynamic shared memory (kSharedBytes has room)
    auto const raw = reinterpret_cast<std::uintptr_t>(shared);
    std::uint32_t const misalign = arch::smem_address(shared) % Arch::kSmemAlignment;
    auto& shared_all = *reinterpret_cast<SharedStorage*>(raw + (Arch::kSmemAlignment - misalign) %
                                                                   Arch::kSmemAlignment);
    auto& s = shared_all.mainloop;
    int const tid = arch::thread_idx();
    int const warpgroup = tid / Arch::kWarpgroupThreads;
    if (tid == 0) Mainloop::init(s, p.mainloop);
    // Cluster: both CTAs' barriers must be initialized before either CTA multicasts into the
    // other or arrives on its barriers.
    if constexpr (kClusterSize > 1)
      arch::cluster_sync();  // waits for: the barriers of every CTA of the cluster initialized
    else
      arch::sync_block();  // waits for: the ring's barriers initialized
    // Programmatic dependent launch: this grid may have started while the stream's previous
    // kernel drained (kProgrammaticLaunch); nothing above touched global memory.
    arch::grid_dependency_wait();  // waits for: the previous kernel's writes (A, B, scales, C)

    // Items are tiles (tile pairs with a cluster, one tile of the pair per rank); cluster c of
    // the grid's clusters takes items c, c + clusters, ... (the scheduler's walk)
    int const rank = kClusterSize > 1 ? arch::cluster_ctarank() : 0;
    TileScheduler scheduler(p.scheduler, arch::block_idx_x() / kClusterSize,
                            arch::grid_dim_x() / kClusterSize, rank);
    typename Mainloop::Position pos;  // this thread's place in the ring, across tiles
    if (warpgroup == 0) {             // producer
      if constexpr (Policy::kConsumers > 1) arch::setmaxnreg_dec<Policy::kProducerRegisters>();
      if (tid < Arch::kWaveSize && arch::elect_one_sync()) {  // one thread of warp 0
        while (scheduler.more()) {
          if constexpr (kGrouped) {
            auto const placed = scheduler.next_placed();
            WorkTile const t = TileScheduler::tile_of(p.scheduler, placed);
            // waits for: the consumers freed the tile's first stage (and the placement beside it)
            arch::Mbarrier::wait(&s.empty[pos.stage], pos.phase ^ 1);
            // read by the consumers after the stage's full barrier (load's arrive releases it)
            shared_all.work[pos.stage] = placed;
            // the group's rows of the flattened operands
            Mainloop::load(p.mainloop, s, pos, t.load_m0, t.load_n0, t.k_tile_begin, t.k_tile_end,
                           rank);
          } else {
            WorkTile const t = scheduler.next();
            Mainloop::load(p.mainloop, s, pos, t.m0, t.n0, t.k_tile_begin, t.k_tile_end, rank);
          }
        }
        // Every load of this CTA is issued: the stream's next grid may be scheduled once every
        // CTA got here (or exited); it waits in its own grid_dependency_wait for this one to
        // complete (programmatic launch).
        arch::allow_dependent_launch();
      } else if constexpr (kCheckedTiles) {
        // warps 1-3: the checked tiles' checker, walking the consumers' items one ahead
        if (tid >= Arch::kWaveSize && checks_tiles(p)) {
          int const w = tid / Arch::kWaveSize - 1, lane = tid % Arch::kWaveSize;
          for (int j = 0; scheduler.more(); ++j) {
            WorkTile const t = scheduler.next();  // grouped: the group looked up here too
            int const m0 = kGrouped ? t.load_m0 : t.m0, n0 = kGrouped ? t.load_n0 : t.n0;
            if (j > 0)
              Mainloop::check_tile(p.mainloop, s, j, m0, n0, t.k_tile_begin, t.k_tile_end, w, lane);
          }
        }
      }
    } else if constexpr (kGrouped) {
      consume_grouped(p, shared_all, scheduler, pos);
    } else {  // consumers
      // waits for: the registers the producer gave back (setmaxnreg.inc blocks until free)
      if constexpr (Policy::kConsumers > 1) arch::setmaxnreg_inc<Policy::kConsumerRegisters>();
      auto const coords = Mainloop::Coords::current();
      // Per-tensor scales, read once: read at each tile's epilogue, the load's L2 round trip
      // (under the main loop's traffic) was paid by every tile while the tensor cores idled.
      auto const dq = Epilogue::Dequant::load(p.epilogue);
      // the CTA's items in order; ping-pong: consumer c takes c, c + 2, ...
      for (int mine = 0; scheduler.more(); ++mine) {
        WorkTile const t = scheduler.next();
        if (Policy::kPingPong && mine % 2 != coords.consumer) {
          // the other consumer's tile: its k-blocks pass through the ring untouched by this one
          pos.template advance_by<Policy::kStages>(t.k_tile_end - t.k_tile_begin);
          continue;
        }
        int const m0 = t.m0, n0 = t.n0;
        // checked tiles: item mine's verdict (read for every item past the first, in order)
        bool const checked =
            checks_tiles(p) && mine > 0 && Mainloop::tile_checked(s, mine, coords.t);
        Accumulators acc;
        acc.clear();
        // Ping-pong order: a ring wait is a parity wait, right only within one lap of the ring,
        // so this consumer starts on its tile's stages only after the other one has waited on
        // every stage of the tile before (then each of ours is at most one lap ahead).
        // waits for: the other consumer passed the last full-barrier wait of its tile
        if (Policy::kPingPong && mine > 0)
          arch::named_barrier_sync(handoff_barrier(coords.consumer), 256);
        if (t.k_tile_begin < t.k_tile_end)  // a split past K's end adds zeros
          Mainloop::multiply(p.mainloop, s, pos, m0, n0, t.k_tile_begin, t.k_tile_end, coords, acc,
                             checked);
        // the next item is the other consumer's: it may start (one arrival per item, matched)
        if (Policy::kPingPong && scheduler.more())
          arch::named_barrier_arrive(handoff_barrier(1 - coords.consumer), 256);
        // a pair's tile past the matrix (odd tile count) multiplied its partner's tile, to
        // consume the shared stages: nothing to store
        if (!t.store) continue;
        if constexpr (TileScheduler::kStreamK) {
          if (t.partial_slot >= 0) {  // a segment short of the tile's last k-block
            stream_k_leave_partial(p, t.partial_slot, coords, acc);
            continue;
          }
          if (t.fixup_end > t.fixup_begin)  // the tile's earlier segments, in CTA order
            stream_k_add_partials(p, t.fixup_begin, t.fixup_end, t.fixup_stride, coords, acc);
        }
        if (p.scheduler.split_k == 1)
          Epilogue::store(p.epilogue, epilogue_storage(shared_all), OutputBounds::of(p.problem), m0,
                          n0, acc, coords, dq);
        else
          store_split_k_partial(p.workspace, p.problem, m0, n0, t.split, acc, coords);
      }
      Epilogue::finish(p.epilogue, coords);  // its copies out of shared memory, before exit
    }
    // Cluster: no CTA may exit while its peer can still multicast into its shared memory or
    // arrive on its barriers (the last stages' releases); every thread of both CTAs meets here.
    if constexpr (kClusterSize > 1)
      arch::cluster_sync();  // waits for: both CTAs' producers and consumers are done
  }

  /// The consumers' walk of a grouped problem: the same items as the producer's, each tile read
  /// from beside its first stage (GroupedShared::work) once that stage is full, so that only the
  /// producer, running ahead by the ring, looks groups up. With split-K an item is a tile's split
  /// (never empty: GroupedTileScheduler::split_begin), whose partial sums go to the workspace.
  /// Ping-pong takes whole tiles (split_k = 1: the scheduler's can_implement).
  template <class Scheduler>
  FP8GEMM_DEVICE static void consume_grouped(Params const& p, SharedStorage& shared_all,
                                             Scheduler& scheduler,
                                             typename Mainloop::Position& pos) {
    auto& s = shared_all.mainloop;
    // waits for: the registers the producer gave back (setmaxnreg.inc blocks until free)
    if constexpr (Policy::kConsumers > 1) arch::setmaxnreg_inc<Policy::kConsumerRegisters>();
    auto const coords = Mainloop::Coords::current();
    int const k_blocks = p.scheduler.k_tiles;
    auto dq = Epilogue::Dequant::load(p.epilogue);  // group 0's per-tensor scales
    int dq_group = 0;
    for (int mine = 0; scheduler.more(); ++mine) {
      scheduler.skip();
      if (Policy::kPingPong && mine % 2 != coords.consumer) {  // the other consumer's tile
        pos.template advance_by<Policy::kStages>(k_blocks);
        continue;
      }
      // waits for: the other consumer passed the last full-barrier wait of its tile (ping-pong)
      if (Policy::kPingPong && mine > 0)
        arch::named_barrier_sync(handoff_barrier(coords.consumer), 256);
      // waits for: the tile's first stage, and the placement the producer wrote beside it
      arch::Mbarrier::wait(&s.full[pos.stage], pos.phase);
      WorkTile const t = Scheduler::tile_of(p.scheduler, shared_all.work[pos.stage]);
      if (t.group != dq_group)  // the group's per-tensor scales, read under the main loop
        dq = Epilogue::Dequant::load(Epilogue::Direct::for_group(p.epilogue, t.offsets));
      dq_group = t.group;
      // the tile's per-channel scales on their way to shared memory while the main loop runs
      // (read by store_group's staging loop: none with split-K, whose reduction applies them)
      if (p.scheduler.split_k == 1)
        Epilogue::prefetch_group_scales(p.epilogue, epilogue_storage(shared_all), t.offsets,
                                        t.bounds, t.m0, t.n0, coords);
      // checked tiles: item mine's verdict (read for every item past the first, in order)
      bool const checked = checks_tiles(p) && mine > 0 && Mainloop::tile_checked(s, mine, coords.t);
      Accumulators acc;
      acc.clear();
      // The split's K range, warp-uniform for ptxas with two consumers: read from shared memory
      // (the placement) it is not, nor the K loop's ring position with it, and ptxas then builds
      // every wgmma descriptor per lane and moves it over (R2UR) before each wgmma, and spills
      // (docs/grouped.md, "A regression, found and fixed"). One consumer keeps the plain read:
      // there the broadcast takes only after a warp sync at the walk's start, and that form,
      // descriptors uniform, measured 3 % slower on decode-sized Blockwise groups.
      int kb_begin = t.k_tile_begin, kb_end = t.k_tile_end;
      if constexpr (Policy::kConsumers > 1)
        kb_begin = arch::warp_uniform(kb_begin), kb_end = arch::warp_uniform(kb_end);
      Mainloop::multiply(p.mainloop, s, pos, t.load_m0, t.load_n0, kb_begin, kb_end, coords, acc,
                         checked);
      if (Policy::kPingPong && scheduler.more())
        arch::named_barrier_arrive(handoff_barrier(1 - coords.consumer), 256);
      if (p.scheduler.split_k == 1)  // the group's C, bias and scales; its rows
        Epilogue::store_group(p.epilogue, epilogue_storage(shared_all), t.offsets, t.bounds, t.m0,
                              t.n0, acc, coords, dq);
      else  // the group's rows of the workspace, by their flattened rows of A
        store_split_k_rows(p.workspace, p.problem.m, t.bounds.n_end, t.load_m0, t.n0,
                           t.offsets.a_row + t.bounds.m_end, t.split, acc, coords);
    }
    Epilogue::finish(p.epilogue, coords);  // its copies out of shared memory, before exit
  }

  /// Stream-K's workspace (a StreamK<P> policy's scheduler): one int flag per CTA
  /// and consumer warpgroup (zeroed by Gemm::run before every launch that cuts a tile, set by the
  /// slot's writer),
  /// then per CTA and consumer a slot of FP32 partial sums, a thread's
  /// accumulators in register order as float4s interleaved over the warpgroup's threads:
  ///   slot(cta, consumer)[(q · 128 + t) · 4 + j] = register 4 q + j of thread t
  static constexpr int kThreadRegs = Policy::kAtomsM * Mainloop::Atom::kAccumulators;
  static_assert(kThreadRegs % 4 == 0, "stream-K slots hold a thread's accumulators as float4s");
  static constexpr int kConsumerThreads = Arch::kWarpgroupThreads;
  FP8GEMM_HOST_DEVICE static constexpr std::size_t stream_k_flag_bytes(int ctas) {
    return (std::size_t(ctas) * Policy::kConsumers * sizeof(int) + 255) / 256 * 256;
  }
  static constexpr std::size_t stream_k_workspace_bytes(int ctas) {
    return stream_k_flag_bytes(ctas) +
           std::size_t(ctas) * Policy::kConsumers * kConsumerThreads * kThreadRegs * sizeof(float);
  }
  /// Named barrier of one consumer warpgroup for its stream-K flags (1-2: ping-pong hand-off,
  /// 3-4: TmaStoreEpilogue).
  FP8GEMM_DEVICE static int stream_k_barrier(int consumer) { return 5 + consumer; }
  FP8GEMM_DEVICE static int* stream_k_flag(Params const& p, int cta, int consumer) {
    return reinterpret_cast<int*>(p.workspace) + cta * Policy::kConsumers + consumer;
  }
  FP8GEMM_DEVICE static float* stream_k_slot(Params const& p, int cta, int consumer) {
    auto* base =
        reinterpret_cast<unsigned char*>(p.workspace) + stream_k_flag_bytes(p.scheduler.grid);
    return reinterpret_cast<float*>(base) +
           (std::int64_t(cta) * Policy::kConsumers + consumer) * kConsumerThreads * kThreadRegs;
  }

  /// This consumer's accumulators into slot (cta, consumer), then its flag raised.
  template <class Coords>
  FP8GEMM_DEVICE static void stream_k_leave_partial(Params const& p, int cta, Coords const& c,
                                                    Accumulators const& acc) {
    float* const slot = stream_k_slot(p, cta, c.consumer);
    float const* const regs = &acc.v[0][0][0];
    struct alignas(16) Four {
      float v[4];
    };
    FP8GEMM_UNROLL
    for (int q = 0; q < kThreadRegs / 4; ++q) {
      Four const f = {{regs[4 * q], regs[4 * q + 1], regs[4 * q + 2], regs[4 * q + 3]}};
      reinterpret_cast<Four*>(slot)[q * kConsumerThreads + c.t] = f;
    }
    // waits for: every thread of the warpgroup issued its writes (the release covers them)
    arch::named_barrier_sync(stream_k_barrier(c.consumer), kConsumerThreads);
    if (c.t == 0) arch::flag_release(stream_k_flag(p, cta, c.consumer), 1);
  }

  /// acc += slots (cta, consumer) for cta = begin, begin + stride, ... below end, in that order,
  /// each once its flag is raised (lower CTAs only: stream_k.hpp).
  template <class Coords>
  FP8GEMM_DEVICE static void stream_k_add_partials(Params const& p, int begin, int end, int stride,
                                                   Coords const& c, Accumulators& acc) {
    float* const regs = &acc.v[0][0][0];
    for (int cta = begin; cta < end; cta += stride) {
      if (c.t == 0) arch::flag_acquire_wait(stream_k_flag(p, cta, c.consumer));
      // waits for: thread 0 saw the slot's flag (its writes are visible from here on)
      arch::named_barrier_sync(stream_k_barrier(c.consumer), kConsumerThreads);
      float const* const slot = stream_k_slot(p, cta, c.consumer);
      FP8GEMM_UNROLL
      for (int q = 0; q < kThreadRegs / 4; ++q) {
        float v[4];
        arch::load_l2_f32x4(slot + (std::int64_t(q) * kConsumerThreads + c.t) * 4, v);
        FP8GEMM_UNROLL
        for (int j = 0; j < 4; ++j) regs[4 * q + j] += v[j];
      }
    }
  }

  /// The epilogue's part of shared memory; an empty one is never accessed.
  FP8GEMM_DEVICE static typename Epilogue::SharedStorage& epilogue_storage(SharedStorage& s) {
    if constexpr (kEpilogueShared)
      return s.epilogue;
    else
      return *reinterpret_cast<typename Epilogue::SharedStorage*>(&s);
  }

  /// Ping-pong hand-off barriers (hardware ids 1 and 2; 0 is the block barrier): consumer c waits
  /// on its own, the other consumer arrives on it. Two ids, so each sees arrivals from one side
  /// and waits from the other, strictly alternating. 256 = both consumer warpgroups.
  FP8GEMM_DEVICE static int handoff_barrier(int consumer) { return 1 + consumer; }
};

}  // namespace fp8gemm
