// SPDX-License-Identifier: MIT
/// Host emulator (arch layer): runs a GPU kernel body on the CPU, one cooperative fiber per GPU
/// thread, with real workgroup and wave barriers, wave collectives, LDS, and deadlock / early-exit
/// detection. Over 600 lines on purpose: the scheduler of fibers, the barriers and collectives
/// they wait in, and the queued asynchronous copies are one state machine, whose invariants read
/// best in one place.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "fp8gemm/arch/emu/fiber_context.hpp"

// NOTE: forced inlining keeps the switch path short in unoptimized (-O0) test builds too.
#define FP8GEMM_EMU_INLINE inline __attribute__((always_inline))

namespace fp8gemm::emu {

/// Grid or block extent / index, CUDA-style.
struct Dim3 {
  int x = 1, y = 1, z = 1;
};

/// Everything launch() needs: grid, 1-D block size, wave size, LDS bytes, OS threads, fiber stacks.
struct LaunchConfig {
  Dim3 grid;
  int block_threads = 64;
  int wave_size = 64;
  std::size_t shared_bytes = 0;
  int host_threads = 0;                               // 0 = std::thread::hardware_concurrency()
  std::size_t stack_bytes = kDefaultFiberStackBytes;  // per GPU thread, plus one guard page
  int lds_banks = 32;                                 // 4-byte LDS banks of the emulated target
};

/// What the last launch() on the calling OS thread did (for timing tests and reports).
struct LaunchStats {
  std::uint64_t workgroups = 0;
  std::uint64_t fiber_switches = 0;  // fiber -> fiber and OS thread <-> fiber switches
  int host_threads = 0;              // OS threads the workgroups ran on
};

inline constexpr std::uint8_t kLdsPoisonByte = 0xCD;  // fills LDS at every workgroup start

namespace detail {

/// Thrown into suspended fibers to unwind their stacks when their workgroup is abandoned.
struct FiberCancel {};

enum class FiberState : std::uint8_t { kRunnable, kWaitBlock, kWaitWave, kDone };

/// One asynchronous global -> LDS copy of one thread, in flight until its group is waited for.
struct AsyncCopy {
  std::uint8_t* dst;
  int bytes;
  std::uint8_t data[16];  // read at issue; lands in LDS at the wait
};

/// One GPU thread: its context, stack, what it waits for, and its asynchronous copies: those
/// issued since the last commit (open), and the committed groups in flight, oldest first.
struct Fiber {
  FiberContext ctx;
  FiberStack stack;
  int tid = 0;
  int wave = 0;
  int lane = 0;
  FiberState state = FiberState::kRunnable;
  bool started = false;
  std::vector<AsyncCopy> async_open;
  std::vector<std::vector<AsyncCopy>> async_groups;
};

/// Called by the OS thread running a workgroup at every workgroup barrier release and when the
/// workgroup ends (the LDS bank recorder flushes its per-barrier log there); null when unused.
inline std::atomic<void (*)()> block_sync_hook{nullptr};

/// Barrier state of one wave (the last wave may have fewer than wave_size lanes).
struct WaveState {
  int first_tid = 0;
  int lanes = 0;
  int arrived = 0;
  int exited = 0;
  void const* tag =
      nullptr;             // identifies what the arrived lanes wait at (sync_wave or a collective)
  void** slots = nullptr;  // [wave_size]: each arrived lane's collective pointer
};

template <class T>
inline constexpr char kCollectiveTag = 0;  // one address per collective callable type
inline constexpr char kSyncWaveTag = 0;

/// State shared by all OS threads of one launch.
struct LaunchShared {
  std::atomic<std::int64_t> next_block{0};
  std::int64_t num_blocks = 0;
  std::atomic<bool> abort{false};
  std::atomic<std::uint64_t> workgroups{0};
  std::atomic<std::uint64_t> switches{0};
  std::mutex error_mutex;
  std::exception_ptr error;

  void record(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (!error) error = std::move(e);  // first one wins
    abort.store(true, std::memory_order_relaxed);
  }
};

class Worker;
inline thread_local Worker* tls_worker = nullptr;

[[noreturn]] inline void fiber_main();

/// Runs workgroups on one OS thread: owns the fibers (and their stacks) and the LDS buffer, and
/// schedules the fibers of the current workgroup round-robin.
class Worker {
 public:
  Worker(LaunchConfig const& cfg, void (*invoke)(void*), void* body)
      : cfg_(cfg), invoke_(invoke), body_(body), n_(cfg.block_threads) {
    num_waves_ = (n_ + cfg.wave_size - 1) / cfg.wave_size;
    slots_.assign(static_cast<std::size_t>(num_waves_) * cfg.wave_size, nullptr);
    waves_.resize(num_waves_);
    for (int w = 0; w < num_waves_; ++w) {
      waves_[w].first_tid = w * cfg.wave_size;
      waves_[w].lanes = std::min(cfg.wave_size, n_ - w * cfg.wave_size);
      waves_[w].slots = slots_.data() + static_cast<std::size_t>(w) * cfg.wave_size;
    }
    fibers_ = std::make_unique<Fiber[]>(n_);
    for (int t = 0; t < n_; ++t) {
      fibers_[t].tid = t;
      fibers_[t].wave = t / cfg.wave_size;
      fibers_[t].lane = t % cfg.wave_size;
      fibers_[t].stack = FiberStackCache::instance().acquire(cfg.stack_bytes);
    }
    context_init_thread(main_);
    lds_bytes_ = std::max<std::size_t>((cfg.shared_bytes + 127) / 128 * 128, 128);
    lds_ = ::operator new (lds_bytes_, std::align_val_t{128});
  }
  Worker(Worker const&) = delete;
  Worker& operator=(Worker const&) = delete;
  ~Worker() {
    for (int t = 0; t < n_; ++t) FiberStackCache::instance().release(std::move(fibers_[t].stack));
    ::operator delete (lds_, std::align_val_t{128});
  }

  /// Takes workgroups from shared until none are left or the launch aborts.
  void run_blocks(LaunchShared& shared) {
    tls_worker = this;
    std::uint64_t done = 0;
    try {
      for (;;) {
        if (shared.abort.load(std::memory_order_relaxed)) break;
        std::int64_t const linear = shared.next_block.fetch_add(1, std::memory_order_relaxed);
        if (linear >= shared.num_blocks) break;
        Dim3 idx;
        idx.x = static_cast<int>(linear % cfg_.grid.x);
        idx.y = static_cast<int>(linear / cfg_.grid.x % cfg_.grid.y);
        idx.z = static_cast<int>(linear / cfg_.grid.x / cfg_.grid.y);
        run_block(idx);
        ++done;
        if (error_) {
          shared.record(error_);
          break;
        }
      }
    } catch (...) {
      shared.record(std::current_exception());
    }
    tls_worker = nullptr;
    shared.workgroups.fetch_add(done, std::memory_order_relaxed);
    shared.switches.fetch_add(switches_, std::memory_order_relaxed);
  }

  // ---- accessors used by the device-side API ------------------------------------------------
  FP8GEMM_EMU_INLINE Fiber& current() const { return *current_; }
  Dim3 block_idx() const { return block_idx_; }
  Dim3 grid_dim() const { return cfg_.grid; }
  FP8GEMM_EMU_INLINE int block_dim() const { return n_; }
  int wave_size() const { return cfg_.wave_size; }
  int lds_banks() const { return cfg_.lds_banks; }
  int wave_lanes() const { return waves_[current_->wave].lanes; }
  void* lds() const { return lds_; }
  std::size_t lds_bytes() const { return cfg_.shared_bytes; }
  FP8GEMM_EMU_INLINE bool in_fiber() const { return current_ != nullptr; }

  /// Workgroup barrier: returns once all block_threads threads have arrived.
  FP8GEMM_EMU_INLINE void arrive_block() {
    if (cancelling_) throw FiberCancel{};
    if (++block_arrived_ == n_) {  // the last thread releases everyone and keeps running
      block_arrived_ = 0;
      if (auto* hook = block_sync_hook.load(std::memory_order_relaxed)) hook();
      for (int t = 0; t < n_; ++t) fibers_[t].state = FiberState::kRunnable;
      runnable_ = n_;
      return;
    }
    current_->state = FiberState::kWaitBlock;
    suspend_current();
  }

  /// Wave barrier; the last lane to arrive calls fn(slots) before anyone continues.
  template <class Fn>
  FP8GEMM_EMU_INLINE void arrive_wave(void const* tag, void* slot, Fn&& fn) {
    if (cancelling_) throw FiberCancel{};
    Fiber& self = *current_;
    WaveState& wave = waves_[self.wave];
    if (wave.arrived == 0) {
      wave.tag = tag;
    } else if (wave.tag != tag) {
      throw_divergence(self, tag, wave.tag);
    }
    wave.slots[self.lane] = slot;
    if (++wave.arrived == wave.lanes) {  // the last lane runs fn, releases the wave, keeps running
      fn(wave.slots);
      wave.arrived = 0;
      Fiber* lane = &fibers_[wave.first_tid];
      for (int l = 0; l < wave.lanes; ++l) lane[l].state = FiberState::kRunnable;
      runnable_ += wave.lanes - 1;
      return;
    }
    self.state = FiberState::kWaitWave;
    suspend_current();
  }

  // ---- called from fiber_main ------------------------------------------------------------------
  void invoke_body() { invoke_(body_); }
  void record_error(std::exception_ptr e) {
    if (!error_) error_ = std::move(e);
  }

  /// The current fiber has returned from the body: marks it done and switches away for good.
  [[noreturn]] void exit_current() {
    Fiber& self = *current_;
    if (!cancelling_ && !error_) check_async_copies_landed(self);
    self.state = FiberState::kDone;
    --runnable_;
    ++exited_;
    ++waves_[self.wave].exited;
    Fiber* next = nullptr;
    if (!cancelling_ && !error_) {
      int const wave_waiting = waves_[self.wave].arrived;
      if (block_arrived_ > 0 || wave_waiting > 0) {
        record_error(std::make_exception_ptr(std::logic_error(
            exit_message(self.tid, block_arrived_ > 0 ? block_arrived_ : wave_waiting))));
      } else if (exited_ < n_) {
        next = pick_next(self.tid);
        if (!next) record_error(stall_error());
      }
    }
    switch_from(self.ctx, next, /*from_exits=*/true);
    std::abort();  // a finished fiber is never resumed
  }

 private:
  void run_block(Dim3 idx) {
    block_idx_ = idx;
    std::memset(lds_, kLdsPoisonByte, lds_bytes_);
    block_arrived_ = 0;
    exited_ = 0;
    runnable_ = n_;
    cancelling_ = false;
    error_ = nullptr;
    for (WaveState& w : waves_) w.arrived = w.exited = 0;
    for (int t = 0; t < n_; ++t) {
      Fiber& f = fibers_[t];
      f.state = FiberState::kRunnable;
      f.started = false;
      f.async_open.clear();
      f.async_groups.clear();
      context_init(f.ctx, f.stack, &fiber_main);
    }
    current_ = &fibers_[0];
    ++switches_;
    context_switch(main_, fibers_[0].ctx);
    // Back on the OS thread's stack: every fiber is done, or error_ is set.
    if (error_) cancel_all();
    if (auto* hook = block_sync_hook.load(std::memory_order_relaxed)) hook();
    current_ = nullptr;
  }

  /// Unwinds every suspended fiber (destructors on their stacks run) after an error.
  void cancel_all() {
    cancelling_ = true;
    for (int t = 0; t < n_; ++t) {
      Fiber& f = fibers_[t];
      if (f.state == FiberState::kDone) continue;
      if (!f.started) {
        f.state = FiberState::kDone;
        continue;
      }
      f.state = FiberState::kRunnable;
      current_ = &f;
      ++switches_;
      context_switch(main_, f.ctx);  // the fiber throws FiberCancel and exits
    }
  }

  /// The current fiber has just stopped being runnable: runs the next runnable one, or reports a
  /// stall to the OS thread. Returns when the fiber is resumed.
  FP8GEMM_EMU_INLINE void suspend_current() {
    Fiber& self = *current_;
    --runnable_;
    Fiber* next = pick_next(self.tid);
    if (!next) record_error(stall_error());
    switch_from(self.ctx, next);
    if (cancelling_) throw FiberCancel{};
  }

  /// Deterministic round-robin: the first runnable fiber after `after`, wrapping around.
  FP8GEMM_EMU_INLINE Fiber* pick_next(int after) const {
    if (runnable_ <= 0) return nullptr;
    for (int t = after + 1; t < n_; ++t)
      if (fibers_[t].state == FiberState::kRunnable) return &fibers_[t];
    for (int t = 0; t <= after; ++t)
      if (fibers_[t].state == FiberState::kRunnable) return &fibers_[t];
    return nullptr;
  }

  FP8GEMM_EMU_INLINE void switch_from(FiberContext& from, Fiber* next, bool from_exits = false) {
    ++switches_;
    current_ = next;
    context_switch(from, next ? next->ctx : main_, from_exits);
  }

  /// A thread that ends with asynchronous copies it never waited for has a wrong wait count (or
  /// none): on a GPU those bytes would land at an unknown time.
  void check_async_copies_landed(Fiber const& self) {
    std::size_t pending = self.async_open.size();
    for (auto const& group : self.async_groups) pending += group.size();
    if (pending > 0)
      record_error(std::make_exception_ptr(std::logic_error(
          "thread " + std::to_string(self.tid) + " of block " + block_name() + " exited with " +
          std::to_string(pending) + " asynchronous copies it never waited for")));
  }

  std::string block_name() const {
    return "(" + std::to_string(block_idx_.x) + "," + std::to_string(block_idx_.y) + "," +
           std::to_string(block_idx_.z) + ")";
  }
  [[noreturn]] __attribute__((noinline)) void throw_divergence(Fiber const& self, void const* tag,
                                                               void const* wave_tag) const {
    throw std::logic_error("lane " + std::to_string(self.lane) + " of wave " +
                           std::to_string(self.wave) + " of block " + block_name() +
                           " reached a different wave barrier (" + tag_name(tag) +
                           ") than its wave's other lanes (" + tag_name(wave_tag) + ")");
  }
  static std::string tag_name(void const* tag) {
    return tag == &kSyncWaveTag ? "sync_wave" : "a wave_collective";
  }
  std::string exit_message(int tid, int waiting) const {
    return "thread " + std::to_string(tid) + " of block " + block_name() + " exited while " +
           std::to_string(waiting) + " threads wait at a barrier";
  }

  /// No fiber can run, yet not all are done: an early exit or a deadlock. Says which.
  std::exception_ptr stall_error() const {
    auto first_exited = [&](int begin, int end) {
      for (int t = begin; t < end; ++t)
        if (fibers_[t].state == FiberState::kDone) return t;
      return -1;
    };
    if (exited_ > 0 && block_arrived_ > 0) {
      return std::make_exception_ptr(
          std::logic_error(exit_message(first_exited(0, n_), block_arrived_)));
    }
    int wave_waiting = 0;
    for (WaveState const& w : waves_) {
      if (w.arrived > 0 && w.exited > 0) {
        return std::make_exception_ptr(std::logic_error(
            exit_message(first_exited(w.first_tid, w.first_tid + w.lanes), w.arrived)));
      }
      wave_waiting += w.arrived;
    }
    return std::make_exception_ptr(std::logic_error(
        "deadlock in block " + block_name() + ": " + std::to_string(block_arrived_) +
        " threads wait at sync_threads, " + std::to_string(wave_waiting) +
        " at wave barriers (sync_wave / wave_collective), " + std::to_string(exited_) +
        " exited; no thread can proceed"));
  }

  LaunchConfig cfg_;
  void (*invoke_)(void*);
  void* body_;
  int n_;
  int num_waves_ = 0;
  std::unique_ptr<Fiber[]> fibers_;
  std::vector<WaveState> waves_;
  std::vector<void*> slots_;
  void* lds_ = nullptr;
  std::size_t lds_bytes_ = 0;  // allocated (rounded up) bytes

  Fiber* current_ = nullptr;  // the running fiber; null on the OS thread's own stack
  FiberContext main_;         // the OS thread's context while a workgroup runs
  Dim3 block_idx_;
  int block_arrived_ = 0;
  int exited_ = 0;
  int runnable_ = 0;  // fibers in kRunnable, the running one included
  bool cancelling_ = false;
  std::exception_ptr error_;
  std::uint64_t switches_ = 0;
};

/// First code on every fiber stack: runs the body, records its exception, exits the fiber.
[[noreturn]] inline void fiber_main() {
  context_entered();
  Worker* worker = tls_worker;
  worker->current().started = true;
  try {
    worker->invoke_body();
  } catch (FiberCancel const&) {
    // unwound on purpose after another thread's error
  } catch (...) {
    worker->record_error(std::current_exception());
  }
  worker->exit_current();
}

[[noreturn]] __attribute__((noinline)) inline void throw_outside_launch() {
  throw std::logic_error("fp8gemm::emu device function called outside emu::launch");
}

FP8GEMM_EMU_INLINE Worker& current_worker() {
  Worker* w = tls_worker;
  if (__builtin_expect(w == nullptr || !w->in_fiber(), 0)) throw_outside_launch();
  return *w;
}

inline thread_local LaunchStats tls_last_stats;

}  // namespace detail

// ---- device-side API: callable only inside the body passed to launch() --------------------------

FP8GEMM_EMU_INLINE int thread_idx() {
  return detail::current_worker().current().tid;
}
inline int block_dim() {
  return detail::current_worker().block_dim();
}
inline Dim3 block_idx() {
  return detail::current_worker().block_idx();
}
inline Dim3 grid_dim() {
  return detail::current_worker().grid_dim();
}
inline int wave_size() {
  return detail::current_worker().wave_size();
}
FP8GEMM_EMU_INLINE int lane_id() {
  return detail::current_worker().current().lane;
}
FP8GEMM_EMU_INLINE int wave_id() {
  return detail::current_worker().current().wave;
}
/// Lanes that exist in the caller's wave: wave_size, or fewer in a partial last wave.
inline int wave_lanes() {
  return detail::current_worker().wave_lanes();
}

/// This workgroup's LDS: shared_bytes, 128-byte aligned, filled with kLdsPoisonByte at its start.
inline void* shared_memory() {
  return detail::current_worker().lds();
}
inline std::size_t shared_memory_bytes() {
  return detail::current_worker().lds_bytes();
}

/// Workgroup barrier (s_barrier / __syncthreads): returns when all threads of the block reached it.
FP8GEMM_EMU_INLINE void sync_threads() {
  detail::current_worker().arrive_block();
}

/// Barrier among the existing lanes of the caller's wave.
FP8GEMM_EMU_INLINE void sync_wave() {
  detail::current_worker().arrive_wave(&detail::kSyncWaveTag, nullptr, [](void**) {});
}

/// Wave-collective: every lane passes its own slot; the last lane to arrive calls fn(slots), with
/// slots[lane] = that lane's pointer (void*[wave_size]; lanes past a partial wave's end are
/// unspecified), then all lanes continue. One barrier, no copies.
template <class Fn>
FP8GEMM_EMU_INLINE void wave_collective(void* slot, Fn&& fn) {
  detail::current_worker().arrive_wave(&detail::kCollectiveTag<std::decay_t<Fn>>, slot,
                                       std::forward<Fn>(fn));
}

/// Number of 4-byte LDS banks of the emulated target (LaunchConfig::lds_banks).
inline int lds_banks() {
  return detail::current_worker().lds_banks();
}

/// Asynchronous copy (cp.async, buffer_load ... lds): reads the first `valid` of `bytes` (<= 16)
/// bytes at src now, zeros after, and writes them to dst only when the calling thread waits for
/// the copy's group (async_wait). Until then dst keeps whatever it held, so a wait that comes one
/// group too early leaves stale bytes and a wrong result, as it would on the GPU.
inline void async_copy(void* dst, void const* src, int bytes, int valid) {
  detail::AsyncCopy c{static_cast<std::uint8_t*>(dst), bytes, {}};
  if (bytes < 1 || bytes > 16 || valid < 0 || valid > bytes)
    throw std::invalid_argument("emu::async_copy: 1..16 bytes, 0 <= valid <= bytes");
  std::memcpy(c.data, src, static_cast<std::size_t>(valid));
  detail::current_worker().current().async_open.push_back(c);
}

/// Closes the group of the calling thread's copies issued since the last commit (an empty group
/// counts too, as cp.async.commit_group's does).
inline void async_commit() {
  detail::Fiber& f = detail::current_worker().current();
  f.async_groups.push_back(std::move(f.async_open));
  f.async_open.clear();
}

/// Lands the calling thread's oldest committed groups until at most `pending` remain in flight
/// (cp.async.wait_group); copies issued after the last commit are not waited for.
inline void async_wait(int pending) {
  detail::Fiber& f = detail::current_worker().current();
  std::size_t const keep = pending < 0 ? 0 : static_cast<std::size_t>(pending);
  std::size_t landed = 0;
  for (; f.async_groups.size() - landed > keep; ++landed)
    for (detail::AsyncCopy const& c : f.async_groups[landed]) std::memcpy(c.dst, c.data, c.bytes);
  f.async_groups.erase(f.async_groups.begin(),
                       f.async_groups.begin() + static_cast<std::ptrdiff_t>(landed));
}

/// One lane of a direct-to-LDS buffer load (buffer_load_dword{,x4} ... lds): the `bytes` (4 or 16)
/// bytes at base + offset, read now, land at lds_wave + lane * bytes when the calling thread waits
/// for them (vmem_wait). `base` is the resource's base plus the scalar offset (soffset), which the
/// range check leaves out; `offset` is the checked part (VGPR offset + immediate). Range check of a
/// raw buffer (stride 0), per 4-byte component: component j is read when offset + 4j + 4 <=
/// num_records, else it lands as zero and memory is not touched.
/// Each load is its own group: vmcnt counts instructions, oldest first.
///
/// Sources (not the kernels the mainloop was written from): LLVM's IntrinsicsAMDGPU.td,
/// int_amdgcn_raw_buffer_load_lds: "LDS base offset" (uniform, M0), "Data byte size: 1/2/4
/// (/12/16 for gfx950)", voffset and the immediate offset "included in bounds checking",
/// soffset "excluded from bounds checking"; AMD's CDNA3 ISA guide, 9.1.8 (buffer range
/// checking: out-of-range reads return zero; dword x2/x3/x4 loads are range-checked per
/// component) and 9.1.10 (LDS DMA: LDS_ADDR = LDSbase (M0) + inst_offset + TID * size, i.e.
/// consecutive lanes fill consecutive `size`-byte slots). tests/emulator/buffer_lds_test.cpp pins
/// these facts as numbers.
inline void vmem_load_lds(void* lds_wave, void const* base, std::uint32_t offset,
                          std::uint32_t num_records, int bytes) {
  if (bytes != 4 && bytes != 16)
    throw std::invalid_argument("emu::vmem_load_lds: 4 or 16 bytes per lane");
  detail::Fiber& f = detail::current_worker().current();
  detail::AsyncCopy c{static_cast<std::uint8_t*>(lds_wave) + f.lane * bytes, bytes, {}};
  auto const* src = static_cast<std::uint8_t const*>(base);
  for (int j = 0; j < bytes / 4; ++j) {
    std::uint64_t const first = std::uint64_t{offset} + 4u * static_cast<unsigned>(j);
    if (first + 4 <= num_records) std::memcpy(c.data + 4 * j, src + first, 4);
  }
  std::vector<detail::AsyncCopy> group{c};
  f.async_groups.push_back(std::move(group));
}

/// One lane of a buffer load into a register (buffer_load_ubyte): its value is read at once (the
/// compiler waits for register loads itself), but it takes its place in the vmcnt queue like the
/// direct-to-LDS loads, so a counted wait behind it lands exactly what the GPU's would.
inline void vmem_load_register() {
  detail::current_worker().current().async_groups.emplace_back();
}

/// s_waitcnt vmcnt(pending): lands the calling thread's oldest loads until at most `pending` are in
/// flight (the same queue as async_copy's groups).
inline void vmem_wait(int pending) {
  async_wait(pending);
}

/// Statistics of the last launch() made by the calling OS thread.
inline LaunchStats last_launch_stats() {
  return detail::tls_last_stats;
}

/// Runs body() once per thread of every workgroup of cfg.grid. Workgroups are spread over
/// cfg.host_threads OS threads (the calling thread is one of them); the threads of a workgroup are
/// fibers on one OS thread. The first exception thrown by a body, or the first barrier error
/// (std::logic_error), is rethrown here after all OS threads have joined. body is called
/// concurrently from several OS threads.
template <class F>
void launch(LaunchConfig const& cfg, F&& body) {
  if (detail::tls_worker != nullptr) throw std::logic_error("emu::launch called inside a kernel");
  if (cfg.block_threads < 1) throw std::invalid_argument("emu::launch: block_threads < 1");
  if (cfg.wave_size < 1) throw std::invalid_argument("emu::launch: wave_size < 1");
  if (cfg.grid.x < 0 || cfg.grid.y < 0 || cfg.grid.z < 0)
    throw std::invalid_argument("emu::launch: negative grid dimension");
  if (cfg.stack_bytes < 4096) throw std::invalid_argument("emu::launch: stack_bytes < 4096");

  detail::LaunchShared shared;
  shared.num_blocks = std::int64_t{cfg.grid.x} * cfg.grid.y * cfg.grid.z;
  int threads = cfg.host_threads > 0 ? cfg.host_threads
                                     : static_cast<int>(std::thread::hardware_concurrency());
  threads = static_cast<int>(
      std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(shared.num_blocks, 1)));
  detail::tls_last_stats = LaunchStats{0, 0, threads};
  if (shared.num_blocks == 0) return;

  using Body = std::remove_reference_t<F>;
  void (*invoke)(void*) = [](void* p) { (*static_cast<Body*>(p))(); };
  void* body_ptr = const_cast<void*>(static_cast<void const*>(std::addressof(body)));
  auto work = [&] {
    try {
      detail::Worker worker(cfg, invoke, body_ptr);
      worker.run_blocks(shared);
    } catch (...) {
      shared.record(std::current_exception());  // e.g. stacks could not be mapped
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  try {
    for (int i = 1; i < threads; ++i) helpers.emplace_back(work);
  } catch (...) {
    shared.record(std::current_exception());
  }
  work();
  for (std::thread& t : helpers) t.join();

  detail::tls_last_stats = LaunchStats{shared.workgroups.load(), shared.switches.load(), threads};
  if (shared.error) std::rethrow_exception(shared.error);
}

}  // namespace fp8gemm::emu
