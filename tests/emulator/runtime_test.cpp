// SPDX-License-Identifier: MIT
/// Tests of the host emulator runtime (fibers, barriers, wave collectives, error detection) and of
/// the LDS bank-conflict model.
#include "fp8gemm/arch/emu/runtime.hpp"

#include <gtest/gtest.h>
#include <time.h>

#include <array>
#include <atomic>
#include <cfenv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fp8gemm/arch/emu/lds_bank_model.hpp"

namespace emu = fp8gemm::emu;

namespace {

emu::LaunchConfig config(int blocks, int threads, std::size_t shared_bytes = 0,
                         int host_threads = 1) {
  emu::LaunchConfig cfg;
  cfg.grid = emu::Dim3{blocks, 1, 1};
  cfg.block_threads = threads;
  cfg.wave_size = 64;
  cfg.shared_bytes = shared_bytes;
  cfg.host_threads = host_threads;
  return cfg;
}

std::string launch_error(emu::LaunchConfig const& cfg, void (*body)()) {
  try {
    emu::launch(cfg, body);
  } catch (std::logic_error const& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

// ---- indices, LDS, barriers -------------------------------------------------------------------

TEST(EmuRuntime, IndicesCoverGridAndBlock) {
  emu::LaunchConfig cfg = config(0, 96, 0, 2);
  cfg.grid = emu::Dim3{3, 2, 2};
  std::vector<std::atomic<int>> seen(12 * 96);
  std::atomic<int> bad{0};
  emu::launch(cfg, [&] {
    emu::Dim3 const b = emu::block_idx();
    emu::Dim3 const g = emu::grid_dim();
    int const t = emu::thread_idx();
    if (g.x != 3 || g.y != 2 || g.z != 2 || emu::block_dim() != 96 || emu::wave_size() != 64) ++bad;
    if (emu::lane_id() != t % 64 || emu::wave_id() != t / 64) ++bad;
    if (emu::wave_lanes() != (t < 64 ? 64 : 32)) ++bad;
    ++seen[((b.z * 2 + b.y) * 3 + b.x) * 96 + t];
  });
  EXPECT_EQ(bad.load(), 0);
  for (auto const& s : seen) EXPECT_EQ(s.load(), 1);
  EXPECT_EQ(emu::last_launch_stats().workgroups, 12u);
  EXPECT_EQ(emu::last_launch_stats().host_threads, 2);
}

TEST(EmuRuntime, SharedMemoryIsAlignedAndPoisonedPerWorkgroup) {
  std::atomic<int> bad{0};
  emu::launch(config(4, 64, 1000), [&] {
    auto* lds = static_cast<unsigned char*>(emu::shared_memory());
    if (reinterpret_cast<std::uintptr_t>(lds) % 128 != 0) ++bad;
    if (emu::shared_memory_bytes() != 1000) ++bad;
    int const t = emu::thread_idx();
    for (int i = t; i < 1000; i += 64)
      if (lds[i] != emu::kLdsPoisonByte) ++bad;
    emu::sync_threads();  // waits for: every thread checked the poison before anyone overwrites it
    for (int i = t; i < 1000; i += 64) lds[i] = 0;  // the next workgroup must see poison again
  });
  EXPECT_EQ(bad.load(), 0);
}

TEST(EmuRuntime, BarrierPublishesSharedMemory) {
  constexpr int kThreads = 256;
  auto run = [](bool with_barrier) {
    std::atomic<int> wrong{0};
    emu::launch(config(3, kThreads, kThreads * 4), [&] {
      auto* lds = static_cast<std::uint32_t*>(emu::shared_memory());
      int const t = emu::thread_idx();
      lds[t] = 3u * t + 1u + emu::block_idx().x;
      if (with_barrier) emu::sync_threads();  // waits for: every thread's lds[t] store
      int const n = (t + 1) % kThreads;
      if (lds[n] != 3u * n + 1u + emu::block_idx().x) ++wrong;
    });
    return wrong.load();
  };
  EXPECT_EQ(run(true), 0);
  EXPECT_GT(run(false), 0) << "without the barrier, threads must read their neighbours' poison";
}

TEST(EmuRuntime, BarriersInLoopsKeepPerThreadState) {
  constexpr int kThreads = 128;
  constexpr int kIters = 50;
  std::atomic<int> wrong{0};
  emu::launch(config(4, kThreads, kThreads * 4, 2), [&] {
    auto* lds = static_cast<int*>(emu::shared_memory());
    int const t = emu::thread_idx();
    std::array<int, 512> regs;  // per-thread state on this fiber's stack
    for (int i = 0; i < 512; ++i) regs[i] = t * 1000 + i;
    long acc = 0;
    for (int it = 0; it < kIters; ++it) {
      lds[t] = it * kThreads + t;
      emu::sync_threads();  // waits for: this iteration's stores
      int const l = (t + kThreads - 1) % kThreads;
      int const r = (t + 1) % kThreads;
      if (lds[l] != it * kThreads + l || lds[r] != it * kThreads + r) ++wrong;
      acc += lds[l] + lds[r];
      emu::sync_threads();  // waits for: this iteration's loads, before the next stores
    }
    for (int i = 0; i < 512; ++i)
      if (regs[i] != t * 1000 + i) ++wrong;
    long expect = 0;
    for (int it = 0; it < kIters; ++it)
      expect += 2L * it * kThreads + (t + kThreads - 1) % kThreads + (t + 1) % kThreads;
    if (acc != expect) ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(EmuRuntime, FloatingPointControlWordsArePerFiber) {
  std::atomic<int> wrong{0};
  emu::launch(config(1, 64), [&] {
    int const t = emu::thread_idx();
    if (t == 0) std::fesetround(FE_UPWARD);
    emu::sync_threads();  // waits for: thread 0 changed its rounding mode
    if (std::fegetround() != (t == 0 ? FE_UPWARD : FE_TONEAREST)) ++wrong;
    if (t == 0) std::fesetround(FE_TONEAREST);
  });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// ---- wave barriers and collectives ---------------------------------------------------------

TEST(EmuRuntime, WaveCollectiveReduction) {
  std::atomic<int> wrong{0};
  emu::launch(config(2, 256, 0, 2), [&] {
    int const t = emu::thread_idx();
    for (int round = 0; round < 10; ++round) {
      long value = t * 7 + round;
      emu::wave_collective(&value, [](void** slots) {
        long sum = 0;
        for (int l = 0; l < emu::wave_lanes(); ++l) sum += *static_cast<long*>(slots[l]);
        for (int l = 0; l < emu::wave_lanes(); ++l) *static_cast<long*>(slots[l]) = sum;
      });
      int const w0 = emu::wave_id() * 64;
      long expect = 0;
      for (int l = 0; l < 64; ++l) expect += (w0 + l) * 7 + round;
      if (value != expect) ++wrong;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(EmuRuntime, WaveCollectivePermutation) {
  std::atomic<int> wrong{0};
  emu::launch(config(1, 128), [&] {
    int value = 1000 + emu::thread_idx();
    // value[lane] <- value[lane ^ 5]: every lane reads before any lane's slot is written
    emu::wave_collective(&value, [](void** slots) {
      int tmp[64];
      for (int l = 0; l < 64; ++l) tmp[l] = *static_cast<int*>(slots[l ^ 5]);
      for (int l = 0; l < 64; ++l) *static_cast<int*>(slots[l]) = tmp[l];
    });
    if (value != 1000 + emu::wave_id() * 64 + (emu::lane_id() ^ 5)) ++wrong;
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(EmuRuntime, PartialLastWave) {
  std::atomic<int> wrong{0};
  emu::launch(config(2, 100, 100 * 4), [&] {
    int const t = emu::thread_idx();
    auto* lds = static_cast<int*>(emu::shared_memory());
    int lanes = 1;
    emu::wave_collective(&lanes, [](void** slots) {
      int n = 0;
      for (int l = 0; l < emu::wave_lanes(); ++l) n += *static_cast<int*>(slots[l]);
      for (int l = 0; l < emu::wave_lanes(); ++l) *static_cast<int*>(slots[l]) = n;
    });
    if (lanes != (t < 64 ? 64 : 36)) ++wrong;
    lds[t] = t;
    emu::sync_wave();  // waits for: the wave's lds stores (wave-private region)
    int const w0 = emu::wave_id() * 64;
    int const peer = w0 + (t - w0 + 1) % emu::wave_lanes();
    if (lds[peer] != peer) ++wrong;
    emu::sync_threads();
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(EmuRuntime, ManyWorkgroupsWithCrossWorkgroupAtomics) {
  constexpr int kBlocks = 500;
  std::atomic<long> total{0};
  std::vector<int> per_block(kBlocks, 0);
  int plain_counter = 0;
  emu::launch(config(kBlocks, 64, 0, 2), [&] {
    total.fetch_add(emu::thread_idx() + 1);
    __atomic_fetch_add(&plain_counter, 1, __ATOMIC_RELAXED);
    emu::sync_threads();
    if (emu::thread_idx() == 0) per_block[emu::block_idx().x] += 1;
  });
  EXPECT_EQ(total.load(), long{kBlocks} * 64 * 65 / 2);
  EXPECT_EQ(plain_counter, kBlocks * 64);
  for (int c : per_block) EXPECT_EQ(c, 1);
  EXPECT_EQ(emu::last_launch_stats().workgroups, static_cast<std::uint64_t>(kBlocks));
  EXPECT_EQ(emu::last_launch_stats().host_threads, 2);
}

TEST(EmuRuntime, EmptyGridRunsNothing) {
  emu::LaunchConfig cfg = config(0, 64);
  int calls = 0;
  emu::launch(cfg, [&] { ++calls; });
  EXPECT_EQ(calls, 0);
}

// ---- error detection ---------------------------------------------------------------------------

TEST(EmuRuntime, DetectsExitWhileOthersWait) {
  // Thread 255 runs last, so it returns while 255 threads already wait.
  EXPECT_EQ(launch_error(config(1, 256),
                         [] {
                           if (emu::thread_idx() != 255) emu::sync_threads();
                         }),
            "thread 255 of block (0,0,0) exited while 255 threads wait at a barrier");
  // Threads 0..31 return before anyone waits; the barrier can still never complete.
  EXPECT_EQ(launch_error(config(1, 256),
                         [] {
                           if (emu::thread_idx() >= 32) emu::sync_threads();
                         }),
            "thread 0 of block (0,0,0) exited while 224 threads wait at a barrier");
  // Same at a wave barrier: lane 3 of wave 1 leaves its wave.
  EXPECT_EQ(launch_error(config(1, 128),
                         [] {
                           if (emu::thread_idx() != 64 + 3) emu::sync_wave();
                         }),
            "thread 67 of block (0,0,0) exited while 3 threads wait at a barrier");
}

TEST(EmuRuntime, DetectsMismatchedBarrierCounts) {
  // Half the threads call sync_threads twice, the other half once and exit.
  std::string const msg = launch_error(config(2, 128), [] {
    emu::sync_threads();
    if (emu::thread_idx() < 64) emu::sync_threads();
  });
  EXPECT_NE(msg.find("exited while 64 threads wait at a barrier"), std::string::npos) << msg;
}

TEST(EmuRuntime, DetectsDeadlock) {
  std::string const msg = launch_error(config(1, 128), [] {
    if (emu::thread_idx() < 32) {
      emu::sync_wave();
    } else {
      emu::sync_threads();
    }
  });
  EXPECT_EQ(msg,
            "deadlock in block (0,0,0): 96 threads wait at sync_threads, 32 at wave barriers "
            "(sync_wave / wave_collective), 0 exited; no thread can proceed");
}

TEST(EmuRuntime, DetectsWaveDivergence) {
  std::string const msg = launch_error(config(1, 64), [] {
    if (emu::lane_id() < 10) {
      emu::sync_wave();
    } else {
      int x = 0;
      emu::wave_collective(&x, [](void**) {});
    }
  });
  EXPECT_NE(msg.find("reached a different wave barrier"), std::string::npos) << msg;
}

namespace {
std::atomic<int> g_live_guards{0};
struct LiveGuard {
  LiveGuard() { ++g_live_guards; }
  ~LiveGuard() { --g_live_guards; }
  LiveGuard(LiveGuard const&) = delete;
  LiveGuard& operator=(LiveGuard const&) = delete;
};
}  // namespace

TEST(EmuRuntime, PropagatesBodyExceptionAndUnwindsWaitingThreads) {
  g_live_guards = 0;
  std::atomic<int> after_barrier{0};
  try {
    emu::launch(config(8, 128, 0, 2), [&] {
      LiveGuard guard;
      std::vector<int> heap(100, emu::thread_idx());
      emu::sync_threads();
      if (emu::block_idx().x == 5 && emu::thread_idx() == 17) throw std::runtime_error("boom 17");
      emu::sync_threads();
      ++after_barrier;
    });
    ADD_FAILURE() << "launch did not throw";
  } catch (std::runtime_error const& e) {
    EXPECT_STREQ(e.what(), "boom 17");
  }
  EXPECT_EQ(g_live_guards.load(), 0) << "suspended fibers must be unwound";
  EXPECT_LT(after_barrier.load(), 8 * 128);
}

TEST(EmuRuntime, ThrowsOutsideLaunchAndOnBadConfig) {
  EXPECT_THROW(emu::thread_idx(), std::logic_error);
  EXPECT_THROW(emu::sync_threads(), std::logic_error);
  EXPECT_THROW(emu::launch(config(1, 0), [] {}), std::invalid_argument);
  EXPECT_THROW(emu::launch(config(1, 64), [] { emu::launch(config(1, 64), [] {}); }),
               std::logic_error);
}

namespace {
int recurse(int depth) {
  char volatile frame[1024];  // < one page, so the overflow cannot step over the guard page
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + frame[0];
}
}  // namespace

TEST(EmuRuntimeDeathTest, StackOverflowHitsGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  emu::LaunchConfig cfg = config(1, 64);
  cfg.stack_bytes = 16 << 10;
  emu::launch(cfg, [] { EXPECT_EQ(recurse(4), 4 * 5 / 2 * 1); });  // fits: a few KiB
  EXPECT_DEATH(emu::launch(cfg, [] { recurse(1000); }), "");
}

// ---- LDS bank model ------------------------------------------------------------------------

namespace {
emu::LdsConflict conflicts(int stride_bytes, int width, int banks, int lanes = 64) {
  std::vector<std::uint32_t> offsets(lanes);
  for (int l = 0; l < lanes; ++l) offsets[l] = static_cast<std::uint32_t>(l * stride_bytes);
  return emu::lds_bank_conflicts(offsets.data(), nullptr, lanes, width, banks);
}
}  // namespace

TEST(LdsBankModel, HandComputedPatterns) {
  // ds_read_b128, stride 16 B, gfx950: 4 phases of 16 lanes x 4 dwords cover 64 banks once.
  emu::LdsConflict c = conflicts(16, 16, 64);
  EXPECT_EQ(c.phases, 4);
  EXPECT_EQ(c.max_degree, 1);
  EXPECT_EQ(c.extra_cycles, 0);
  // Every lane reads the same dword: broadcast.
  c = conflicts(0, 4, 64);
  EXPECT_EQ(c.phases, 1);
  EXPECT_EQ(c.max_degree, 1);
  EXPECT_EQ(c.extra_cycles, 0);
  // ds_read_b32, stride 256 B = 64 dwords: all 64 lanes in bank 0 -> degree 64.
  c = conflicts(256, 4, 64);
  EXPECT_EQ(c.max_degree, 64);
  EXPECT_EQ(c.extra_cycles, 63);
  // ds_read_b128, stride 32 B, gfx950: lanes l and l+8 of a phase share banks -> 2-way, 4 phases.
  c = conflicts(32, 16, 64);
  EXPECT_EQ(c.max_degree, 2);
  EXPECT_EQ(c.extra_cycles, 4);
  // gfx942 (32 banks): ds_read_b128 stride 16 B -> 8 phases of 8 lanes, conflict free.
  c = conflicts(16, 16, 32);
  EXPECT_EQ(c.phases, 8);
  EXPECT_EQ(c.extra_cycles, 0);
  // gfx942: ds_read_b64 stride 128 B -> 4 phases of 16 lanes, all in banks 0-1: degree 16.
  c = conflicts(128, 8, 32);
  EXPECT_EQ(c.phases, 4);
  EXPECT_EQ(c.max_degree, 16);
  EXPECT_EQ(c.extra_cycles, 60);
  // Masked-off lanes do not count: only lanes 0 and 1 active at stride 256 B -> 2-way.
  std::vector<std::uint32_t> offsets(64);
  bool active[64] = {true, true};
  for (int l = 0; l < 64; ++l) offsets[l] = static_cast<std::uint32_t>(l * 256);
  c = emu::lds_bank_conflicts(offsets.data(), active, 64, 4, 64);
  EXPECT_EQ(c.extra_cycles, 1);
  EXPECT_THROW(emu::lds_bank_conflicts(offsets.data(), nullptr, 64, 12, 64), std::invalid_argument);
}

TEST(LdsBankModel, GroupsEachLanesAccessesIntoWaveInstructions) {
  // Region "A" = LDS bytes [0, 16384), "B" = [16384, 32768). Per wave: three 4-byte reads of A at
  // stride 256 B (all 64 lanes in one bank), one 16-byte write of B at stride 16 B, a barrier, and
  // a write of B by the even lanes only (a masked store: 32 lanes, 2 phases' worth of banks).
  auto kernel = [] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    std::uint32_t const lane = static_cast<std::uint32_t>(emu::lane_id());
    for (int i = 0; i < 3; ++i) emu::lds_access(lds + lane * 256, 4, /*is_write=*/false);
    emu::lds_access(lds + 16384 + lane * 16, 16, /*is_write=*/true);
    emu::sync_threads();
    if (lane % 2 == 0) emu::lds_access(lds + 16384 + lane * 8, 16, /*is_write=*/true);
  };
  emu::LaunchConfig cfg = config(4, 128, 32768, 2);
  cfg.lds_banks = 64;
  {
    emu::LdsRecordingScope recording({{"A", 0, 16384}, {"B", 16384, 32768}});
    emu::launch(cfg, kernel);
    emu::LdsSiteStats const a = emu::LdsBankRecorder::instance().site("A read");
    EXPECT_EQ(a.instructions, 4u * 2 * 3);
    EXPECT_EQ(a.reads, a.instructions);
    EXPECT_EQ(a.width, 4);
    EXPECT_EQ(a.bytes, 4u * 2 * 3 * 64 * 4);
    EXPECT_EQ(a.extra_cycles, 4u * 2 * 3 * 63);
    EXPECT_EQ(a.max_degree, 64);
    emu::LdsSiteStats const b = emu::LdsBankRecorder::instance().site("B write");
    EXPECT_EQ(b.instructions, 4u * 2 * 2);
    EXPECT_EQ(b.reads, 0u);
    EXPECT_EQ(b.bytes, 4u * 2 * (64 + 32) * 16);
    // The masked store: 4 phases of 16 lanes, 8 of them active, 16 B apart: 32 distinct banks.
    EXPECT_EQ(b.extra_cycles, 0u);
    EXPECT_EQ(emu::LdsBankRecorder::instance().snapshot().size(), 2u);
    std::string const report = emu::LdsBankRecorder::instance().report();
    EXPECT_NE(report.find("A read"), std::string::npos);
    std::printf("%s", report.c_str());
  }
  EXPECT_FALSE(emu::LdsBankRecorder::instance().enabled());
  emu::LdsBankRecorder::instance().reset();
  emu::launch(cfg, kernel);  // recording off: nothing recorded
  EXPECT_TRUE(emu::LdsBankRecorder::instance().snapshot().empty());
}

// ---- asynchronous copies -----------------------------------------------------------------------

namespace {
/// Each thread copies 16 bytes into LDS in three groups (one copy each: 0x11.., 0x22.., 0x33..),
/// waits with `pending` groups allowed in flight, and reports what LDS holds for each group.
std::vector<int> landed_groups(int pending) {
  std::vector<int> out(3 * 64, -1);
  emu::launch(config(1, 64, 3 * 64 * 16, 1), [&out, pending] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    int const t = emu::thread_idx();
    std::uint8_t src[3][16];
    for (int g = 0; g < 3; ++g) {
      std::memset(src[g], 0x11 * (g + 1), 16);
      emu::async_copy(lds + (g * 64 + t) * 16, src[g], 16, 16);
      emu::async_commit();
    }
    emu::async_wait(pending);
    for (int g = 0; g < 3; ++g) out[g * 64 + t] = lds[(g * 64 + t) * 16];
    emu::async_wait(0);  // everything lands before the thread ends
  });
  return out;
}
}  // namespace

TEST(EmuAsyncCopy, LandsOnlyAtTheMatchingWait) {
  std::vector<int> const all = landed_groups(0);
  std::vector<int> const two_in_flight = landed_groups(2);  // one group too early for group 1
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(all[0 * 64 + t], 0x11);
    EXPECT_EQ(all[1 * 64 + t], 0x22);
    EXPECT_EQ(all[2 * 64 + t], 0x33);
    EXPECT_EQ(two_in_flight[0 * 64 + t], 0x11);                 // the oldest group landed
    EXPECT_EQ(two_in_flight[1 * 64 + t], emu::kLdsPoisonByte);  // still in flight: poison
    EXPECT_EQ(two_in_flight[2 * 64 + t], emu::kLdsPoisonByte);
  }
}

TEST(EmuAsyncCopy, PartialCopiesZeroFillAndNeverReadPastValid) {
  std::vector<int> got(16, -1);
  emu::launch(config(1, 1, 16, 1), [&got] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    std::uint8_t const src[5] = {1, 2, 3, 4, 5};  // only 5 bytes exist
    emu::async_copy(lds, src, 16, 5);
    emu::async_commit();
    emu::async_wait(0);
    for (int i = 0; i < 16; ++i) got[i] = lds[i];
  });
  for (int i = 0; i < 16; ++i) EXPECT_EQ(got[i], i < 5 ? i + 1 : 0) << i;
}

TEST(EmuAsyncCopy, ExitingWithCopiesInFlightIsAnError) {
  try {
    emu::launch(config(1, 64, 64 * 16, 1), [] {
      auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
      std::uint8_t src[16] = {};
      emu::async_copy(lds + emu::thread_idx() * 16, src, 16, 16);
      emu::async_commit();
      emu::async_wait(1);  // wrong count: the only group is still in flight
    });
    FAIL() << "expected an error";
  } catch (std::logic_error const& e) {
    EXPECT_NE(std::string(e.what()).find("asynchronous copies it never waited for"),
              std::string::npos)
        << e.what();
  }
}

// ---- speed -------------------------------------------------------------------------------------

TEST(EmuRuntimeSpeed, FiberSwitchRate) {
  // host_threads = 1 runs every workgroup on this thread, so its CPU time is the cost per core
  // (robust to other load on the machine; wall time is printed too).
  auto cpu_seconds = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  auto measure = [&](char const* what, emu::LaunchConfig const& cfg, auto&& body) {
    auto const t0 = std::chrono::steady_clock::now();
    double const c0 = cpu_seconds();
    emu::launch(cfg, body);
    double const cpu = cpu_seconds() - c0;
    double const wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double const switches = static_cast<double>(emu::last_launch_stats().fiber_switches);
    std::printf(
        "[ speed    ] %-46s %5.1f M switches: %6.1f M/s per core (CPU time), %6.1f M/s wall\n",
        what, switches / 1e6, switches / cpu / 1e6, switches / wall / 1e6);
    return switches / cpu;
  };
#if defined(FP8GEMM_EMU_ASM_SWITCH)
  constexpr int kIters = 4000;
  constexpr double kMinRate = 1e6;  // loose: CI machines vary; the printout is the measurement
#else
  constexpr int kIters = 50;  // swapcontext makes a syscall per switch
  constexpr double kMinRate = 1e3;
#endif
  double const barrier_rate =
      measure("sync_threads loop, 256 threads, 1 OS thread", config(4, 256, 0, 1), [] {
        for (int i = 0; i < kIters; ++i) emu::sync_threads();
      });
  double const collective_rate =
      measure("wave_collective loop, 256 threads, 1 OS thread", config(4, 256, 0, 1), [] {
        for (int i = 0; i < kIters; ++i) {
          int v = i;
          emu::wave_collective(&v, [](void** slots) { *static_cast<int*>(slots[0]) += 1; });
        }
      });
  double const pingpong_rate =
      measure("sync_threads ping-pong, 2 threads, 1 OS thread", config(4, 2, 0, 1), [] {
        for (int i = 0; i < 64 * kIters; ++i) emu::sync_threads();
      });
  EXPECT_GT(pingpong_rate, kMinRate);
  EXPECT_GT(barrier_rate, kMinRate);
  EXPECT_GT(collective_rate, kMinRate);
}
