// SPDX-License-Identifier: MIT
// The emulator's direct-to-LDS buffer loads (16 bytes per lane, gfx950; 4, gfx942), counted waits
// and the ping-pong barrier pattern (arch/amd/direct_to_lds.hpp, arch/emu/runtime.hpp), and the
// buffer-load mainloop with a wait one load short (gfx950, and gfx942's direct-to-LDS variant),
// and gfx942's default, through registers. The facts pinned here as numbers come from LLVM's
// IntrinsicsAMDGPU.td (int_amdgcn_raw_buffer_load_lds: voffset and the immediate "included in
// bounds checking", soffset "excluded from bounds checking", size 16 on gfx950) and AMD's CDNA3 ISA
// guide (9.1.8: out-of-range reads return zero, dword x2/x3/x4 loads are range-checked per
// component; LDS DMA: LDS_ADDR = M0 + inst_offset + TID * size), not from the kernels the mainloop
// was written after.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/gemm_host_run.hpp"
#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/emu/runtime.hpp"

namespace fp8gemm::test {
namespace {

emu::LaunchConfig one_block(int threads, std::size_t shared_bytes) {
  emu::LaunchConfig cfg;
  cfg.grid = emu::Dim3{1, 1, 1};
  cfg.block_threads = threads;
  cfg.wave_size = 64;
  cfg.shared_bytes = shared_bytes;
  cfg.host_threads = 1;
  return cfg;
}

/// 256 bytes, byte i = i + 1 (no zero, so a zero-filled byte is recognisable).
std::vector<std::uint8_t> ramp() {
  std::vector<std::uint8_t> g(256);
  for (int i = 0; i < 256; ++i) g[i] = static_cast<std::uint8_t>(i + 1);
  return g;
}

TEST(BufferLoadLds, RangeCheckIsPerComponentOnTheVgprOffsetAndLanesFillConsecutiveSlots) {
  std::vector<std::uint8_t> const g = ramp();
  std::vector<std::uint8_t> seen(1024);
  std::vector<std::uint8_t> before(16);
  emu::launch(one_block(64, 1024), [&] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    int const lane = emu::lane_id();
    // num_records 40: lane 0 reads at voffset 32, so components 0 (bytes 32..35) and 1 (36..39)
    // are inside, 2 and 3 (40..47) outside. Lane 5 reads at voffset 0. The others are outside.
    std::uint32_t const voffset = lane == 0 ? 32u : (lane == 5 ? 0u : 0x80000000u);
    arch::buffer_load_lds16(arch::BufferRange{g.data(), 40}, lds, voffset, /*soffset=*/0);
    if (lane == 0)
      for (int i = 0; i < 16; ++i) before[i] = lds[i];  // not landed yet: LDS still poison
    arch::wait_vmcnt<0>();
    emu::sync_threads();  // waits for: every lane's load landed
    if (lane == 0)
      for (int i = 0; i < 1024; ++i) seen[i] = lds[i];
  });
  for (int i = 0; i < 16; ++i) EXPECT_EQ(before[i], emu::kLdsPoisonByte) << i;
  // Lane 0's slot [0, 16): bytes 32..39 of the buffer (values 33..40), then 8 zeros.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(seen[i], 33 + i) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(seen[i], 0) << i;
  // Lane 5 lands at 16 * 5 = 80: bytes 0..15 (values 1..16).
  for (int i = 0; i < 16; ++i) EXPECT_EQ(seen[80 + i], 1 + i) << i;
  // Every other lane's slot is all zero (out of range: zero, memory not read).
  for (int i = 16; i < 1024; ++i) {
    if (i < 80 || i >= 96) {
      EXPECT_EQ(seen[i], 0) << i;
    }
  }
}

TEST(BufferLoadLds, FourByteLoadsFillConsecutiveWordsAndZeroFillPastTheRange) {
  // gfx942's buffer_load_dword ... lds: lane l writes LDS bytes [4l, 4l + 4). num_records 100:
  // lane l reads voffset 4l, inside when 4l + 4 <= 100 (lanes 0..24), zero after.
  std::vector<std::uint8_t> const g = ramp();
  std::vector<std::uint8_t> seen(256), before(4);
  emu::launch(one_block(64, 256), [&] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    int const lane = emu::lane_id();
    arch::buffer_load_lds<4>(arch::BufferRange{g.data(), 100}, lds, 4u * lane, /*soffset=*/0);
    if (lane == 0)
      for (int i = 0; i < 4; ++i) before[i] = lds[i];  // not landed yet: LDS still poison
    arch::wait_vmcnt<0>();
    emu::sync_threads();  // waits for: every lane's load landed
    if (lane == 0)
      for (int i = 0; i < 256; ++i) seen[i] = lds[i];
  });
  for (int i = 0; i < 4; ++i) EXPECT_EQ(before[i], emu::kLdsPoisonByte) << i;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], i + 1) << i;
  for (int i = 100; i < 256; ++i) EXPECT_EQ(seen[i], 0) << i;
}

TEST(BufferLoadRegisters, RangeCheckIsPerComponent) {
  // buffer_load_dwordx4 into registers (gfx942's tile loads): the same per-component check.
  std::vector<std::uint8_t> const g = ramp();
  arch::Vec<16> const v = arch::buffer_load16(arch::BufferRange{g.data(), 40}, 32, 0);
  EXPECT_EQ(v.w[0], 0x24232221u);  // bytes 32..35: values 33..36
  EXPECT_EQ(v.w[1], 0x28272625u);
  EXPECT_EQ(v.w[2], 0u);
  EXPECT_EQ(v.w[3], 0u);
}

TEST(BufferLoadLds, ScalarOffsetIsOutsideTheRangeCheck) {
  std::vector<std::uint8_t> const g = ramp();
  std::vector<std::uint8_t> seen(16);
  emu::launch(one_block(64, 1024), [&] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    // num_records 32, voffset 16, soffset 24: 16 + 16 <= 32, so all four components are read,
    // from byte 24 + 16 = 40 (values 41..56), although 40 is past num_records.
    arch::buffer_load_lds16(arch::BufferRange{g.data(), 32}, lds, 16, /*soffset=*/24);
    arch::wait_vmcnt<0>();
    if (emu::lane_id() == 0)
      for (int i = 0; i < 16; ++i) seen[i] = lds[i];
  });
  for (int i = 0; i < 16; ++i) EXPECT_EQ(seen[i], 41 + i) << i;
}

TEST(BufferLoadLds, WaitingOneLoadTooFewLeavesPoison) {
  std::vector<std::uint8_t> const g = ramp();
  std::vector<int> poisoned_blocks;
  emu::launch(one_block(64, 3 * 1024), [&] {
    auto* lds = static_cast<std::uint8_t*>(emu::shared_memory());
    for (int b = 0; b < 3; ++b)  // three loads, in order, into three 1 KiB blocks
      arch::buffer_load_lds16(arch::BufferRange{g.data(), 256}, lds + 1024 * b, 16u * b, 0);
    // The third load is needed, but vmcnt(1) leaves the newest one in flight: one too few.
    arch::wait_vmcnt<1>();
    if (emu::lane_id() == 0)
      for (int b = 0; b < 3; ++b)
        if (lds[1024 * b] == emu::kLdsPoisonByte) poisoned_blocks.push_back(b);
    arch::wait_vmcnt<0>();
  });
  EXPECT_EQ(poisoned_blocks, std::vector<int>{2});
}

TEST(BufferLoadLds, ExitingWithLoadsInFlightIsAnError) {
  std::vector<std::uint8_t> const g = ramp();
  try {
    emu::launch(one_block(64, 1024), [&] {
      arch::buffer_load_lds16(arch::BufferRange{g.data(), 256},
                              static_cast<std::uint8_t*>(emu::shared_memory()), 0, 0);
    });
    FAIL() << "no error";
  } catch (std::logic_error const& e) {
    EXPECT_NE(std::string(e.what()).find("asynchronous copies it never waited for"),
              std::string::npos)
        << e.what();
  }
}

// ---- the ping-pong barrier pattern ------------------------------------------------------------

/// 8 waves run kPhases (L, M) phase pairs with a barrier after each phase, as the gfx950 mainloop
/// does; waves 4..7 pass one extra barrier first and waves 0..3 one at the end. A workgroup
/// barrier pairs the n-th barrier call of every wave, so interval n (after the n-th barrier) is
/// the same for all: there the two waves of every SIMD (w, w + 4) must be in different phases, one
/// in L and one in M.
TEST(PingPong, HalvesAlternateLoadAndMultiplyPhases) {
  constexpr int kPhases = 6, kIntervals = 2 * kPhases + 2;
  std::vector<char> role(8 * kIntervals, ' ');  // [wave][interval]: 'L', 'M' or ' ' (idle)
  emu::launch(one_block(512, 0), [&] {
    int const wave = emu::wave_id();
    bool const late = wave >= 4, lane0 = emu::lane_id() == 0;
    int n = 0;  // barriers this wave has passed
    auto barrier = [&] {
      arch::barrier_without_fence();  // waits for: the other half's phase
      ++n;
    };
    if (late) barrier();
    for (int p = 0; p < kPhases; ++p) {
      if (lane0) role[wave * kIntervals + n] = 'L';
      barrier();
      if (lane0) role[wave * kIntervals + n] = 'M';
      barrier();
    }
    if (!late) barrier();
  });
  for (int w = 0; w < 4; ++w) {
    for (int n = 1; n < kIntervals - 1; ++n) {
      char const a = role[w * kIntervals + n], b = role[(w + 4) * kIntervals + n];
      if (a == ' ' || b == ' ') continue;
      EXPECT_NE(a, b) << "SIMD " << w << " interval " << n;
    }
  }
  // Intervals 1 .. 2 kPhases - 1 have both waves of a SIMD busy (the early half is idle in the
  // last one, the late half in the first).
  for (int w = 0; w < 8; ++w) {
    for (int n = 1; n < 2 * kPhases; ++n) EXPECT_NE(role[w * kIntervals + n], ' ') << w << n;
  }
}

TEST(PingPong, MissingClosingBarrierIsReported) {
  std::string msg = "no error";
  try {
    emu::launch(one_block(512, 0), [] {
      if (emu::wave_id() >= 4) arch::barrier_without_fence();
      arch::barrier_without_fence();
      // the early half's closing barrier is missing: the late half waits forever
    });
  } catch (std::logic_error const& e) {
    msg = e.what();
  }
  // The late half still waits at its last barrier when the early half exits.
  EXPECT_NE(msg.find("exited while"), std::string::npos) << msg;
  EXPECT_NE(msg.find("wait at a barrier"), std::string::npos) << msg;
}

TEST(PingPong, PrioritiesAndFencesAreNoOpsOnTheEmulator) {
  int runs = 0;
  emu::launch(one_block(64, 0), [&] {
    arch::set_priority<1>();
    arch::schedule_fence();
    arch::wait_lgkmcnt<0>();
    arch::set_priority<0>();
    if (emu::lane_id() == 0) ++runs;
  });
  EXPECT_EQ(runs, 1);
}

// ---- the mainloop with a wait one load short --------------------------------------------------

using GoodConfig =
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>;
static_assert(
    std::is_same_v<GoodConfig::Mainloop, BufferLdsPingPongMainloop<Cdna4Default<e4m3fn, e4m3fn>,
                                                                   PerTensor, LayoutB::kNK, 0>>,
    "gfx950 mk_nk_mn runs the buffer-load mainloop");
/// The same kernel with every counted vmcnt wait leaving one more load in flight.
using WaitOneShortConfig =
    WithMainloop<GoodConfig,
                 BufferLdsPingPongMainloop<GoodConfig::Policy, PerTensor, LayoutB::kNK, 0, 1>>;

TEST(BufferLdsMainloop, WaitOneLoadShortGivesAWrongGemm) {
  // 8 K tiles: every counted wait of the steady state runs.
  GemmCase const c{256, 256, 1024, /*seed=*/77};
  EXPECT_TRUE(run_on_host(GemmProblem<GoodConfig>(c)));
  EXPECT_FALSE(run_on_host(GemmProblem<WaitOneShortConfig>(c)));
}

// gfx942: the default loads through registers; the direct-to-LDS variant (4 bytes per lane) with
// its counted waits, and with every one of them one load short.
using Cdna3Config = GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor, LayoutB::kNK,
                               Epilogue<float, Identity>>;
static_assert(std::is_same_v<Cdna3Config::Mainloop,
                             BufferLdsPingPongMainloop<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor,
                                                       LayoutB::kNK, 0, 0, arch::ThroughRegisters>>,
              "gfx942 mk_nk_mn runs the buffer-load mainloop through registers");
template <int kWaitSlack>
using Cdna3DirectConfig =
    WithMainloop<Cdna3Config,
                 BufferLdsPingPongMainloop<Cdna3Config::Policy, PerTensor, LayoutB::kNK, 0,
                                           kWaitSlack, arch::DirectToLds>>;

TEST(BufferLdsMainloop, Gfx942DirectToLdsWaitOneLoadShortGivesAWrongGemm) {
  // 16 K tiles of 64, a partial one (K % 64 = 40, K % 16 = 8), edge tiles in M and N.
  GemmCase const full{256, 256, 1024, /*seed=*/78}, ragged{200, 300, 1000, /*seed=*/79};
  EXPECT_TRUE(run_on_host(GemmProblem<Cdna3Config>(full)));
  EXPECT_TRUE(run_on_host(GemmProblem<Cdna3Config>(ragged)));
  EXPECT_TRUE(run_on_host(GemmProblem<Cdna3DirectConfig<0>>(full)));
  EXPECT_TRUE(run_on_host(GemmProblem<Cdna3DirectConfig<0>>(ragged)));
  EXPECT_FALSE(run_on_host(GemmProblem<Cdna3DirectConfig<1>>(full)));
}

TEST(BufferLdsMainloop, Gfx942WaitCountsFollowTheSchedule) {
  using M = Cdna3DirectConfig<0>::Mainloop;
  // Cdna3Default, 4-byte loads: 8 A loads + 4 B parts of 4 loads per thread and tile; L_0 issues
  // 4, L_1 3 + 4, L_2 3 + 4, L_3 2 + 4, each between the MFMAs of the M phase before it.
  EXPECT_EQ(M::kLoadsPerTile, 24);
  EXPECT_TRUE(M::kLoadsInMPhase);
  EXPECT_EQ(M::kVmWait<0>, 28);
  EXPECT_EQ(M::kVmWait<1>, 31);
  EXPECT_EQ(M::kVmWait<2>, 31);
  EXPECT_EQ(M::kVmWait<3>, 28);
  // Through registers: 2 A loads + 4 B parts of 1 load of 16 bytes; a staged load's ds_write
  // waits for it with the tile's 5 other loads in flight (no E8M0 byte loads without MX-32).
  using R = Cdna3Config::Mainloop;
  EXPECT_EQ(R::kLoadsPerTile, 6);
  EXPECT_EQ(R::scale_loads_per_tile(), 0);
  EXPECT_EQ(R::kStagedWriteVmcnt, 5);
}

// MX-32: the E8M0 byte loads (into registers, half a K tile or a tile ahead of their MFMAs) count
// in vmcnt too; the emulator queues them like the GPU, so the schedule's waits must count them.
using GoodMxConfig =
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>;
using MxWaitOneShortConfig =
    WithMainloop<GoodMxConfig,
                 BufferLdsPingPongMainloop<GoodMxConfig::Policy, Mx32, LayoutB::kNK, 0, 1>>;

TEST(BufferLdsMainloop, Mx32WaitOneLoadShortGivesAWrongGemm) {
  GemmCase const c{256, 256, 1024, /*seed=*/78};
  EXPECT_TRUE(run_on_host(GemmProblem<GoodMxConfig>(c)));
  EXPECT_FALSE(run_on_host(GemmProblem<MxWaitOneShortConfig>(c)));
}

// MX-32 through registers (4 waves: the tile loads between the MFMAs, each ds_write behind
// kStagedWriteVmcnt, which counts the byte loads too).
using MxStagedConfig = WithMainloop<
    GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>,
    BufferLdsPingPongMainloop<Cdna4KBlocked<e4m3fn, e4m3fn>, Mx32, LayoutB::kNK, 0, 0,
                              arch::ThroughRegisters>>;

// Blockwise: the scales go to LDS by direct-to-LDS dword loads, one K tile ahead, and are read in
// L_0 of their tile: the counted wait before L_0 must cover them as well as the tile's A and B.
template <class Mainloop>
struct OneLoadShort;
template <class P, class G, LayoutB kLB, int kPromoteK, class TileLoad>
struct OneLoadShort<BufferLdsPingPongMainloop<P, G, kLB, kPromoteK, 0, TileLoad>> {
  using type = BufferLdsPingPongMainloop<P, G, kLB, kPromoteK, 1, TileLoad>;
};
using GoodBlockwiseConfig = GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Blockwise<1, 128, 128>,
                                       LayoutB::kNK, Epilogue<float, Identity>>;
static_assert(GoodBlockwiseConfig::Mainloop::kKBlockedScales &&
                  GoodBlockwiseConfig::Mainloop::kScaleLoads == 2,
              "gfx950 Blockwise mk_nk_mn runs the buffer-load mainloop, scales through LDS");
struct BlockwiseWaitOneShortConfig : GoodBlockwiseConfig {
  using Mainloop = typename OneLoadShort<GoodBlockwiseConfig::Mainloop>::type;
  using Kernel = GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>;
  using Params = typename Kernel::Params;
};

TEST(BufferLdsMainloop, Mx32ThroughRegistersGivesTheGemm) {
  GemmCase const c{256, 256, 1024, /*seed=*/80};
  EXPECT_TRUE(run_on_host(GemmProblem<MxStagedConfig>(c)));
}

TEST(BufferLdsMainloop, BlockwiseWaitOneLoadShortGivesAWrongGemm) {
  GemmCase const c{256, 256, 1024, /*seed=*/79};
  EXPECT_TRUE(run_on_host(GemmProblem<GoodBlockwiseConfig>(c)));
  EXPECT_FALSE(run_on_host(GemmProblem<BlockwiseWaitOneShortConfig>(c)));
}

// gfx942 Blockwise through registers: the tiles land by their ds_writes (kStagedWriteVmcnt, which
// counts the LDS scale loads too), the scales by the one counted wait before L_0 (and the
// prologue's); one load short there reads a scale not yet in LDS.
using GoodGfx942BlockwiseConfig =
    GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<float, Identity>>;
static_assert(GoodGfx942BlockwiseConfig::Mainloop::kStaged &&
                  GoodGfx942BlockwiseConfig::Mainloop::kKBlockedScales,
              "gfx942 Blockwise mk_nk_mn runs the buffer-load mainloop through registers");
struct Gfx942BlockwiseWaitOneShortConfig : GoodGfx942BlockwiseConfig {
  using Mainloop = typename OneLoadShort<GoodGfx942BlockwiseConfig::Mainloop>::type;
  using Kernel = GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>;
  using Params = typename Kernel::Params;
};

TEST(BufferLdsMainloop, Gfx942BlockwiseWaitOneLoadShortGivesAWrongGemm) {
  GemmCase const full{256, 256, 1024, /*seed=*/81}, ragged{200, 300, 1000, /*seed=*/82};
  EXPECT_TRUE(run_on_host(GemmProblem<GoodGfx942BlockwiseConfig>(full)));
  EXPECT_TRUE(run_on_host(GemmProblem<GoodGfx942BlockwiseConfig>(ragged)));
  EXPECT_FALSE(run_on_host(GemmProblem<Gfx942BlockwiseWaitOneShortConfig>(full)));
}

TEST(BufferLdsMainloop, WaitCountsFollowTheSchedule) {
  using M = GoodConfig::Mainloop;
  // Cdna4Default: 4 A loads + 4 B parts of 1 load per thread and tile; L_0 issues 1 load, L_1 3,
  // L_2 2, L_3 2. The counts the schedule gives (derivation in the mainloop's comment):
  EXPECT_EQ(M::kLoadsPerTile, 8);
  EXPECT_EQ(M::kVmWait<0>, 9);
  EXPECT_EQ(M::kVmWait<1>, 11);
  EXPECT_EQ(M::kVmWait<2>, 10);
  EXPECT_EQ(M::kVmWait<3>, 9);
  // MX-32 adds its byte loads, first in each L phase: B's 2 bytes of one cluster per phase, A's 4
  // in L_0 (the second half's copy) and L_2 (the first half's).
  using Mx = GoodMxConfig::Mainloop;
  EXPECT_EQ(Mx::scale_loads(0), 6);
  EXPECT_EQ(Mx::scale_loads(1), 2);
  EXPECT_EQ(Mx::scale_loads(2), 6);
  EXPECT_EQ(Mx::scale_loads(3), 2);
  EXPECT_EQ(Mx::kVmWait<0>, 31);
  EXPECT_EQ(Mx::kVmWait<1>, 29);
  EXPECT_EQ(Mx::kVmWait<2>, 32);
  EXPECT_EQ(Mx::kVmWait<3>, 25);
  // Through registers (4 waves, Cdna4KBlocked) a staged load's ds_write waits with every other
  // load of one tile in flight: its other tile loads and the tile's E8M0 byte loads.
  using MxStaged = MxStagedConfig::Mainloop;
  EXPECT_TRUE(MxStaged::kLoadsInMPhase);
  EXPECT_EQ(MxStaged::kStagedWriteVmcnt,
            MxStaged::kLoadsPerTile - 1 + MxStaged::scale_loads_per_tile());
  EXPECT_GT(MxStaged::scale_loads_per_tile(), 0);
  // Blockwise on Cdna4KBlocked (4 x 1 waves of 64 x 128, 4 clusters, one wave per SIMD: each L
  // phase's loads go between the previous M phase's MFMAs): per thread and tile 8 A loads, 4 B
  // parts of 1 load, 2 scale dwords (1 A row, 1 B: one B scale block spans the wave tile). L_1 and
  // L_2 issue 3 A + 1 B, L_3 2 A + 1 B, L_0 1 B then the next tile's scales; the waits the
  // schedule's simulation gives leave in flight what was issued after the last load the next phase
  // reads:
  using Bw = GoodBlockwiseConfig::Mainloop;
  EXPECT_TRUE(Bw::kLoadsInMPhase);
  EXPECT_EQ(Bw::kLoadsPerTile, 12);
  EXPECT_EQ(Bw::kScaleLoads, 2);
  EXPECT_EQ(Bw::kVmWait<0>, 17);
  EXPECT_EQ(Bw::kVmWait<1>, 20);
  EXPECT_EQ(Bw::kVmWait<2>, 18);
  EXPECT_EQ(Bw::kVmWait<3>, 11);
  // gfx942 Blockwise through registers (4 clusters): L_0 issues B part 3 then the next tile's
  // scales (1 A + 1 B dword load: one B scale block spans the wave tile), L_1 and L_2 an A load
  // and a B part, L_3 a B part: 8 loads a tile, so a staged write waits with 7 in flight; the only
  // counted wait, before L_0 reads the scales, leaves the 5 loads issued after them.
  using Bw942 = GoodGfx942BlockwiseConfig::Mainloop;
  EXPECT_TRUE(Bw942::kLoadsInMPhase);
  EXPECT_EQ(Bw942::kScaleLoads, 2);
  EXPECT_EQ(Bw942::scale_loads_per_tile(), 2);
  EXPECT_EQ(Bw942::kStagedWriteVmcnt, 7);
  EXPECT_FALSE(Bw942::counts_vm(0));
  EXPECT_FALSE(Bw942::counts_vm(2));
  EXPECT_TRUE(Bw942::counts_vm(3));
  EXPECT_EQ(Bw942::kVmWait<3>, 5);
}

}  // namespace
}  // namespace fp8gemm::test
