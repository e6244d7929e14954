// SPDX-License-Identifier: MIT
/// Hopper synchronization primitives (arch layer): shared-memory mbarriers (init, arrive,
/// arrive.expect_tx, parity waits, arrivals on a cluster peer's barrier), proxy fences, named
/// barriers, cluster barriers and the CTA's cluster rank, setmaxnreg and elect.sync.
/// Inline PTX only in sm_90a device passes (FP8GEMM_ARCH_SM90A); other device passes trap, host
/// and emulator builds compile these to nothing (no kernel that uses them runs there).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/config.hpp"

namespace fp8gemm::arch {

/// 32-bit shared-memory address of a generic pointer into shared memory (what PTX's
/// .shared::cta operands take). 0 outside sm_90a device passes.
FP8GEMM_DEVICE std::uint32_t smem_address(void const* p) {
#if defined(FP8GEMM_ARCH_SM90A)
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  (void)p;
  return 0;
#endif
}

/// A float from shared memory through a generic pointer into it, as ld.shared (a generic load of
/// the same address is a generic LD). Volatile, so that it stays after the mbarrier wait that
/// makes its bytes visible. Outside sm_90a device passes an ordinary load (host tests).
FP8GEMM_HOST_DEVICE float load_shared(float const* p) {
#if defined(FP8GEMM_ARCH_SM90A)
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(smem_address(p)));
  return v;
#else
  return *p;
#endif
}

/// st.shared of 2, 4 or 8 bytes at a 32-bit shared-memory address (smem_address), aligned to its
/// size. A store through a generic pointer into shared memory is a generic ST, and the compiler
/// then assumes it may alias kernel parameters and re-reads them after it. No memory clobber: its
/// readers are asynchronous copies, ordered after it by the volatile proxy fence that follows.
template <class Bits>
FP8GEMM_DEVICE void store_shared(std::uint32_t address, Bits bits) {
  static_assert(std::is_same_v<Bits, std::uint16_t> || std::is_same_v<Bits, std::uint32_t> ||
                    std::is_same_v<Bits, std::uint64_t>,
                "store_shared: 2, 4 or 8 bytes");
#if defined(FP8GEMM_ARCH_SM90A)
  if constexpr (std::is_same_v<Bits, std::uint16_t>)
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(address), "h"(bits));
  else if constexpr (std::is_same_v<Bits, std::uint32_t>)
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(address), "r"(bits));
  else
    asm volatile("st.shared.u64 [%0], %1;\n" ::"r"(address), "l"(bits));
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)address, (void)bits;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)address, (void)bits;
#endif
}

/// 16 bytes from shared memory (ld.shared.v4.u32 at a 16-byte aligned 32-bit address) to global
/// memory at `dst` (st.global.v4.u32, 16-byte aligned): a staged tile's row piece copied out by a
/// thread. Volatile, so that the load stays between the named barriers around it.
FP8GEMM_DEVICE void copy_shared_to_global_16(std::uint32_t address, void* dst) {
#if defined(FP8GEMM_ARCH_SM90A)
  std::uint32_t a, b, c, d;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "r"(address));
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"l"(dst), "r"(a), "r"(b), "r"(c),
               "r"(d)
               : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)address, (void)dst;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)address, (void)dst;
#endif
}

/// Shared-memory loads of one float, and of two at an 8-byte aligned address (ld.shared).
/// Volatile, so that they stay after the barrier that makes what they read visible.
FP8GEMM_DEVICE float load_shared_f32(std::uint32_t address) {
  float v = 0.0f;
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(address));
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)address;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)address;
#endif
  return v;
}
struct Float2 {
  float x = 0.0f, y = 0.0f;
};
FP8GEMM_DEVICE Float2 load_shared_f32x2(std::uint32_t address) {
  Float2 v;
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(address));
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)address;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)address;
#endif
  return v;
}

/// 4 bytes from global memory at `src` (4-byte aligned) to shared memory at `address`,
/// asynchronously (cp.async.ca): lands at the async_copy_wait (arch/thread.hpp) that covers the
/// commit group it joins; other threads read it after a barrier behind that wait.
FP8GEMM_DEVICE void copy_global_to_shared_4(std::uint32_t address, void const* src) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(address), "l"(src) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)address, (void)src;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)address, (void)src;
#endif
}

/// Shared-memory mbarrier (one 8-byte word): a phase completes when `count` arrivals have been
/// made and the expected transaction bytes (arrive_expect_tx, decremented by TMA completions)
/// have landed; waits are on the parity of a phase (0 for even phases, 1 for odd).
/// Parity protocol of a stage ring: the consumer waits for `full[s]` with parity `phase`, the
/// producer for `empty[s]` with `phase ^ 1` (which returns at once on the first pass: the phase
/// before the first counts as complete), and `phase` flips each time the stage index wraps.
struct Mbarrier {
  /// mbarrier.init.shared::cta.b64: expects `count` arrivals per phase. One thread; follow with
  /// fence_mbarrier_init() and a block barrier before any other thread uses it.
  FP8GEMM_DEVICE static void init(std::uint64_t* bar, int count) {
#if defined(FP8GEMM_ARCH_SM90A)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count)
                 : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)bar, (void)count;
    FP8GEMM_DEVICE_TRAP();
#else
    (void)bar, (void)count;
#endif
  }

  /// mbarrier.arrive.shared::cta.b64 (release, CTA scope): one arrival.
  FP8GEMM_DEVICE static void arrive(std::uint64_t* bar) {
#if defined(FP8GEMM_ARCH_SM90A)
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(
                     smem_address(bar))
                 : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)bar;
    FP8GEMM_DEVICE_TRAP();
#else
    (void)bar;
#endif
  }

  /// One arrival on the mbarrier at `bar`'s offset in the shared memory of cluster CTA
  /// `cta_rank` (this CTA's own rank included): mapa.shared::cluster.u32 turns the local address
  /// into that CTA's, then mbarrier.arrive.shared::cluster.b64 (the default .release.cta: no
  /// cluster-wide fence per arrival). What the arrival hands over is a stage this thread's
  /// wgmmas have finished reading (wgmma_wait before the release), so the peer's TMA refill
  /// cannot overtake a read; a .cluster-scope release would in addition wait for this thread's
  /// outstanding global stores at every k-block. The barrier must be initialized and the cluster
  /// synchronized (cluster_sync) before the first such arrival.
  FP8GEMM_DEVICE static void arrive_cluster(std::uint64_t* bar, int cta_rank) {
#if defined(FP8GEMM_ARCH_SM90A)
    asm volatile(
        "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_address(bar)),
        "r"(cta_rank)
        : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)bar, (void)cta_rank;
    FP8GEMM_DEVICE_TRAP();
#else
    (void)bar, (void)cta_rank;
#endif
  }

  /// mbarrier.arrive.expect_tx.shared::cta.b64: one arrival, and `bytes` more transaction bytes
  /// expected in this phase (the TMA copies that complete on this barrier bring them).
  FP8GEMM_DEVICE static void arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(FP8GEMM_ARCH_SM90A)
    asm volatile(
        "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::
            "r"(smem_address(bar)),
        "r"(bytes)
        : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)bar, (void)bytes;
    FP8GEMM_DEVICE_TRAP();
#else
    (void)bar, (void)bytes;
#endif
  }

  /// mbarrier.try_wait.parity.shared::cta.b64 (acquire, CTA scope): true once the phase with this
  /// parity has completed. The hardware may suspend the thread for a while before returning false.
  FP8GEMM_DEVICE static bool try_wait(std::uint64_t* bar, int parity) {
#if defined(FP8GEMM_ARCH_SM90A)
    std::uint32_t done = 0;
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
    return done != 0;
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)bar, (void)parity;
    FP8GEMM_DEVICE_TRAP();
    return true;
#else
    (void)bar, (void)parity;
    return true;
#endif
  }

  /// Spins on try_wait until the phase with this parity has completed. A protocol bug hangs here;
  /// with FP8GEMM_MBARRIER_TIMEOUT_CYCLES defined (debug and first-light builds) the wait traps
  /// after that many SM cycles instead (the launch then fails with an error).
  /// NOTE: no printf here: a call in a wgmma kernel makes ptxas serialize every wgmma ("wgmma
  /// pipeline crossing function boundary", C7510; seen with CUDA 13.0).
  FP8GEMM_DEVICE static void wait(std::uint64_t* bar, int parity) {
#if defined(FP8GEMM_MBARRIER_TIMEOUT_CYCLES) && defined(FP8GEMM_ARCH_SM90A)
    long long const start = clock64();
    while (!try_wait(bar, parity)) {
      if (clock64() - start > static_cast<long long>(FP8GEMM_MBARRIER_TIMEOUT_CYCLES)) {
        FP8GEMM_DEVICE_TRAP();
      }
    }
#else
    while (!try_wait(bar, parity)) {
    }
#endif
  }
};

/// threadIdx.x, read by a volatile asm where it is called: what is computed from it stays where
/// it is written (a plain read lets the compiler hoist per-thread constants, such as a tile
/// epilogue's addresses, out of the persistent loop, where they stay live across the main loop
/// and push its registers into spills). Outside sm_90a device passes: thread_idx().
FP8GEMM_DEVICE int thread_idx_in_place() {
#if defined(FP8GEMM_ARCH_SM90A)
  std::uint32_t t;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(t));
  return static_cast<int>(t);
#else
  return thread_idx();
#endif
}

/// fence.mbarrier_init.release.cluster: makes mbarrier.init visible to the async proxy (TMA
/// completions) and, with a following block/cluster barrier, to the other threads.
FP8GEMM_DEVICE void fence_mbarrier_init() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// %cluster_ctarank: this CTA's rank in its cluster (0 without a cluster launch; with cluster
/// dims {2, 1, 1}, blockIdx.x % 2). 0 outside sm_90a device passes.
FP8GEMM_DEVICE int cluster_ctarank() {
#if defined(FP8GEMM_ARCH_SM90A)
  std::uint32_t rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return static_cast<int>(rank);
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
  return 0;
#else
  return 0;
#endif
}

/// barrier.cluster.arrive.release: this thread's arrival at the cluster-wide barrier (every
/// non-exited thread of every CTA of the cluster arrives once per phase); its earlier memory
/// accesses (barrier initialization included) happen before the matching wait returns anywhere
/// in the cluster. Not .aligned: the threads of a warp may arrive apart (the producer's elected
/// thread comes later than its siblings).
FP8GEMM_DEVICE void cluster_arrive() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// barrier.cluster.wait.acquire: waits until every thread of the cluster arrived (cluster_arrive)
/// in the current phase.
FP8GEMM_DEVICE void cluster_wait() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// griddepcontrol.wait (programmatic dependent launch): returns once the grids this one depends
/// on (the stream's previous kernel, when this grid was launched with programmatic stream
/// serialization: arch::launch's kProgrammaticLaunch) have completed and their memory operations
/// are visible. Before it a thread may touch only its parameters and shared memory. Without such
/// a dependency it returns at once.
FP8GEMM_DEVICE void grid_dependency_wait() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// griddepcontrol.launch_dependents: this CTA no longer holds back the stream's next grid (when
/// that one is launched with programmatic stream serialization, it may start once every CTA of
/// this grid has called this or exited; it still waits in grid_dependency_wait for this grid to
/// complete before touching memory). Only scheduling moves earlier, never a result.
FP8GEMM_DEVICE void allow_dependent_launch() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("griddepcontrol.launch_dependents;\n");  // orders no memory access
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// The whole cluster meets: arrive (release), then wait (acquire). All threads of all its CTAs.
FP8GEMM_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();  // waits for: every thread of every CTA of the cluster arrived
}

/// fence.proxy.async.shared::cta: orders this thread's generic-proxy shared-memory accesses with
/// later async-proxy ones (TMA stores reading it, wgmma reading it). Every writing thread issues
/// it before the barrier that hands the data to the async proxy.
FP8GEMM_DEVICE void fence_proxy_async_shared() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// bar.sync id, threads: a barrier among `threads` threads (a multiple of 32) of the block, on
/// hardware barrier `id` (1..15; 0 is __syncthreads').
FP8GEMM_DEVICE void named_barrier_sync(int id, int threads) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)id, (void)threads;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)id, (void)threads;
#endif
}

/// bar.arrive id, threads: counts this thread's arrival at barrier `id` without waiting (the
/// signalling side of a producer/consumer pair whose other side calls named_barrier_sync).
FP8GEMM_DEVICE void named_barrier_arrive(int id, int threads) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)id, (void)threads;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)id, (void)threads;
#endif
}

/// A flag between CTAs of one grid (stream-K's partial sums): st.release.gpu of `value` after
/// this thread's earlier writes, and those its block barrier ordered before it, are visible at
/// GPU scope (fence.acq_rel.gpu first: the writers are the warpgroup's other threads).
FP8GEMM_DEVICE void flag_release(int* flag, int value) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("fence.acq_rel.gpu;\n\tst.release.gpu.global.s32 [%0], %1;\n" ::"l"(flag), "r"(value)
               : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)flag, (void)value;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)flag, (void)value;
#endif
}

/// Spins until *flag != 0 (ld.acquire.gpu: what the releasing CTA wrote before its flag_release
/// is then visible to this thread, and through a block barrier to the others).
FP8GEMM_DEVICE void flag_acquire_wait(int const* flag) {
#if defined(FP8GEMM_ARCH_SM90A)
  int seen = 0;
  do {
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(seen) : "l"(flag) : "memory");
  } while (seen == 0);
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)flag;
  FP8GEMM_DEVICE_TRAP();
#else
  (void)flag;
#endif
}

/// ld.global.cg.v4.f32: four floats from L2, not from this SM's L1 (data another CTA wrote).
FP8GEMM_DEVICE void load_l2_f32x4(float const* src, float (&v)[4]) {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
               : "l"(src)
               : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)src, (void)v;
  FP8GEMM_DEVICE_TRAP();
#else
  for (int i = 0; i < 4; ++i) v[i] = src[i];
#endif
}

/// setmaxnreg.inc.sync.aligned.u32 Regs: raises this warpgroup's per-thread register limit,
/// taking registers from the block's pool (blocks until a setmaxnreg.dec released enough).
/// Every thread of the warpgroup executes it; the kernel needs __launch_bounds__(threads, 1),
/// else ptxas ignores it (warning C7508).
template <int Regs>
FP8GEMM_DEVICE void setmaxnreg_inc() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// setmaxnreg.dec.sync.aligned.u32 Regs: lowers this warpgroup's per-thread register limit and
/// returns the registers to the block's pool.
template <int Regs>
FP8GEMM_DEVICE void setmaxnreg_dec() {
  static_assert(Regs >= 24 && Regs <= 256 && Regs % 8 == 0,
                "setmaxnreg takes a multiple of 8 in [24, 256]");
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// elect.sync: true in exactly one active lane of the (converged, full) warp.
FP8GEMM_DEVICE bool elect_one_sync() {
#if defined(FP8GEMM_ARCH_SM90A)
  std::uint32_t elected = 0;
  asm volatile(
      "{\n.reg .pred p;\n.reg .b32 lane;\nelect.sync lane|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(elected));
  return elected != 0;
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
  return false;
#else
  return false;
#endif
}

/// gridDim.x (a persistent kernel strides its tiles by it). 1 outside device passes.
FP8GEMM_DEVICE int grid_dim_x() {
#if defined(FP8GEMM_DEVICE_PASS)
  return static_cast<int>(gridDim.x);
#else
  return 1;
#endif
}

/// x as lane 0 of the warp has it (shfl.sync from lane 0), for an x that is the same on every
/// lane (the warpgroup index): ptxas then knows it is warp-uniform and keeps what is computed from
/// it (the wgmma descriptors of a consumer's rows) in uniform registers, instead of computing it
/// per lane and moving it over (R2UR) before every wgmma. x outside CUDA device passes.
FP8GEMM_DEVICE int warp_uniform(int x) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(FP8GEMM_BACKEND_CUDA)
  return __shfl_sync(0xffffffffu, x, 0);
#else
  return x;
#endif
}

/// True when `pred` holds on every active lane of the warp (vote.all): makes a choice
/// warp-uniform. Outside device passes: pred.
FP8GEMM_DEVICE bool warp_all(bool pred) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(FP8GEMM_BACKEND_CUDA)
  return __all_sync(0xffffffffu, pred) != 0;
#else
  return pred;
#endif
}

}  // namespace fp8gemm::arch
