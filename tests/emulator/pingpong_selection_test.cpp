// SPDX-License-Identifier: MIT
// User tile policies at the edges of the CDNA ping-pong mainloop (BufferLdsPingPongMainloop),
// found by a review on 2026-12-02. Two compiled, passed can_implement and gave a wrong GEMM:
//  - 4 waves (loads in the M phases) with more loads in a phase than MFMAs after the next cluster's
//    B reads: 128 x 128 x 128 on 2 x 2 waves (6 loads, 4 MFMAs: a load mapped onto an MFMA another
//    load already had was never issued) and a 32-row wave tile (no MFMA after the reads: no load
//    of the M phases was issued). Wrong from the third K tile on. Now several loads go after one
//    MFMA, and with none after the reads, all after the last.
//  - hardware MX-32 scales with PromoteEvery<128>: the promoted path issued unscaled MFMAs.
// Two failed to compile with a sentence that named no way out:
//  - a 16-row wave tile on gfx950 (2 MFMAs per cluster for the next cluster's 4 B reads);
//  - Blockwise on a 32-row wave tile (the scales load a wave-wide row at a time).
// The last three now run on LdsMultistageMainloop (BufferLdsPingPongSupports). Each case runs
// against the FP64 reference with K over several tiles and ragged edges.
#include <gtest/gtest.h>

#include <type_traits>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

using A16 = arch::Cdna4Mma16x16x128<e4m3fn, e4m3fn>;

template <class Config>
constexpr bool kRunsPingPong =
    std::is_same_v<typename Config::Mainloop,
                   BufferLdsPingPongMainloop<typename Config::Policy, typename Config::Granularity,
                                             Config::kLayoutB, Config::kPromoteK>>;

/// The most loads one L phase issues, and the MFMAs of a cluster after the next cluster's reads.
template <class Config>
constexpr bool more_loads_than_slots() {
  using M = typename Config::Mainloop;
  return M::kLoadsInMPhase && M::most_phase_loads() > M::kMfmasPerCluster - M::kReadsBCluster;
}

using Crowded = GemmConfig<TilePolicy<128, 128, 128, 2, 2, A16, 2>, PerTensor, LayoutB::kNK,
                           Epilogue<float, Identity>>;
using CrowdedMx = GemmConfig<TilePolicy<128, 128, 128, 2, 2, A16, 2>, Mx32, LayoutB::kNK,
                             Epilogue<bf16, Identity>>;
using NoSlot = GemmConfig<TilePolicy<64, 256, 128, 2, 2, A16, 2>, PerTensor, LayoutB::kNK,
                          Epilogue<float, GeluTanh>>;
static_assert(kRunsPingPong<Crowded> && more_loads_than_slots<Crowded>() &&
                  kRunsPingPong<CrowdedMx> && more_loads_than_slots<CrowdedMx>() &&
                  kRunsPingPong<NoSlot> && more_loads_than_slots<NoSlot>(),
              "the cases below are ping-pong configs with more loads in a phase than MFMA slots");
// The defaults keep one load per MFMA (their code and ISA are unchanged by the fix).
static_assert(!more_loads_than_slots<GemmConfig<Cdna4KBlocked<>, Blockwise<1, 128, 128>,
                                                LayoutB::kNK, Epilogue<float, Identity>>>() &&
                  !more_loads_than_slots<GemmConfig<Cdna3Default<>, PerTensor, LayoutB::kNK,
                                                    Epilogue<float, Identity>>>(),
              "the default 4-wave configs have an MFMA for every load");

TEST(PingPongSelection, PhasesWithMoreLoadsThanMfmaSlotsGiveTheGemm) {
  expect_host_matches_fp64<Crowded>({{256, 256, 640, 301}, {200, 130, 1000, 302}});
  expect_host_matches_fp64<CrowdedMx>({{256, 256, 512, 303}});
  expect_host_matches_fp64<NoSlot>({{128, 256, 640, 304}, {100, 300, 1000, 305}});
}

using SixteenRowWaves = GemmConfig<TilePolicy<32, 256, 128, 2, 2, A16, 2>, PerTensor, LayoutB::kNK,
                                   Epilogue<float, Identity>>;
using MxPromoted =
    GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<float, Identity>, PromoteEvery<128>>;
using BlockwiseThinWaves =
    GemmConfig<TilePolicy<128, 256, 128, 4, 2, A16, 2>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<float, Identity>>;
static_assert(!kRunsPingPong<SixteenRowWaves> && !kRunsPingPong<MxPromoted> &&
                  !kRunsPingPong<BlockwiseThinWaves>,
              "configs the ping-pong mainloop cannot run go to LdsMultistageMainloop");
// Without PromoteEvery the same MX-32 config stays on the ping-pong mainloop.
static_assert(
    kRunsPingPong<GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>>);

TEST(PingPongSelection, ConfigsLeftToTheMultistageMainloopGiveTheGemm) {
  expect_host_matches_fp64<SixteenRowWaves>({{64, 256, 640, 306}, {33, 200, 700, 307}});
  expect_host_matches_fp64<MxPromoted>({{256, 128, 512, 308}, {100, 70, 300, 309}});
  expect_host_matches_fp64<BlockwiseThinWaves>({{256, 256, 512, 310}, {130, 300, 700, 311}});
}

}  // namespace
}  // namespace fp8gemm::test
