// SPDX-License-Identifier: MIT
// BufferLdsPingPongSchedule on the host: the loads each L phase issues and the counted waits the
// schedule derives for the default CDNA policies, each against a literal derived by hand in the
// comment beside it (the derivation follows the schedule in buffer_lds_pingpong_schedule.hpp's top
// comment), and BufferLdsPingPongSupports' kWhyNot for a supported and two refused configs.
#include "fp8gemm/mainloop/buffer_lds_pingpong_schedule.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_policy.hpp"

namespace fp8gemm {
namespace {

template <class Policy, class Granularity,
          class TileLoad = arch::DefaultTileLoad<typename Policy::Arch>>
using Schedule =
    BufferLdsPingPongSchedule<BufferLdsPingPongPolicy<Policy, Granularity, LayoutB::kNK,
                                                      Policy::Atom::kDefaultPromoteK, TileLoad>>;

// GemmConfig's default accumulation: the atom's kDefaultPromoteK (0 on CDNA: the MFMA accumulates
// in FP32); Blockwise promotes per scale block whatever it is.

// Cdna4Default (gfx950): 256 x 256 x 128, 8 waves (4 x 2), 16x16x128 atoms, direct 16-byte loads.
//   A wave tile is 64 x 128: 4 A atoms, 8 B atoms, so kClusters = 8 / 2 = 4.
//   One wave load fills 64 lanes x 16 B / 128 B per row = 8 rows; A: 256 rows / 8 / 8 waves = 4
//   loads per thread; a B part is 32 rows of each of the 2 wave columns = 64 rows: 64 / 8 / 8 = 1.
//   a_phase(j) = 1 + 3j / 4: A loads 0, 1 in L_1, 2 in L_2, 3 in L_3. Per phase:
//   L_0 = B part 3 (1); L_1 = A0, A1, B part 0 (3); L_2 = A2, B part 1 (2); L_3 = A3, B part 2 (2).
TEST(BufferLdsPingPongSchedule, Cdna4DefaultPerTensor) {
  using S = Schedule<Cdna4Default<>, PerTensor>;
  static_assert(S::kClusters == 4 && S::kLoadsA == 4 && S::kLoadsBPart == 1);
  EXPECT_FALSE(S::kStaged);
  EXPECT_FALSE(S::kLoadsInMPhase);  // 8 waves: the ping-pong, loads stay in the L phases
  EXPECT_EQ(S::kLoadsPerTile, 8);   // 4 A + 4 parts x 1
  constexpr int kPhaseLoads[4] = {S::phase_loads(0), S::phase_loads(1), S::phase_loads(2),
                                  S::phase_loads(3)};
  EXPECT_EQ(kPhaseLoads[0], 1);
  EXPECT_EQ(kPhaseLoads[1], 3);
  EXPECT_EQ(kPhaseLoads[2], 2);
  EXPECT_EQ(kPhaseLoads[3], 2);
  // vmcnt at the end of L_c of tile s = loads issued after the last one L_(c+1) / M_(c+1) read:
  //   L_0: L_1 reads B part 2 of s, issued last in L_3 of s-2; after it tile s-1 (8) and L_0 of
  //        s (1): 9.
  //   L_1: L_2 reads B part 3 of s, issued in L_0 of s-1; after it L_1..L_3 of s-1 (3 + 2 + 2)
  //        and L_0, L_1 of s (1 + 3): 11.
  //   L_2: L_3 reads B part 0 of s+1, issued last in L_1 of s-1; after it L_2, L_3 of s-1 (4)
  //        and L_0..L_2 of s (6): 10.
  //   L_3: L_0 of s+1 reads its A (A3 in L_3 of s-1, then B part 2) and B part 1 (L_2 of s-1);
  //        after A3: B part 2 (1) and tile s (8): 9.
  constexpr int kVm[4] = {S::kVmWait<0>, S::kVmWait<1>, S::kVmWait<2>, S::kVmWait<3>};
  EXPECT_EQ(kVm[0], 9);
  EXPECT_EQ(kVm[1], 11);
  EXPECT_EQ(kVm[2], 10);
  EXPECT_EQ(kVm[3], 9);
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(S::counts_vm(c)) << "L_" << c;
  // Prologue (steps -2, -1 = the simulation's tiles 0, 1): tile 0's last load is B part 3 in L_0
  // of step -1; after it that step's L_1..L_3 (3 + 2 + 2): 7.
  EXPECT_EQ(S::prologue_vm_wait(), 7);
}

// Cdna3Default (gfx942): 128 x 256 x 64, 4 waves (2 x 2), 16x16x32 atoms, loads through
// registers (buffer_load_dwordx4, ds_write_b128 a K tile later).
//   One wave load: 64 lanes x 16 B / 64 B rows = 16 rows; A: 128 / 16 / 4 = 2 loads; a B part:
//   32 rows x 2 wave columns = 64 rows: 64 / 16 / 4 = 1. a_phase(j) = 1 + 3j / 2: A0 in L_1, A1 in
//   L_2. Per phase: L_0 = B part 3 (1); L_1 = A0, B part 0 (2); L_2 = A1, B part 1 (2); L_3 = B
//   part 2 (1).
TEST(BufferLdsPingPongSchedule, Cdna3DefaultThroughRegisters) {
  using S = Schedule<Cdna3Default<>, PerTensor>;
  EXPECT_TRUE(S::kStaged);
  EXPECT_TRUE(S::kLoadsInMPhase);  // 4 waves: the loads go between the MFMAs
  EXPECT_EQ(S::kLoadsPerTile, 6);  // 2 A + 4 parts x 1
  EXPECT_EQ(S::phase_loads(0), 1);
  EXPECT_EQ(S::phase_loads(1), 2);
  EXPECT_EQ(S::phase_loads(2), 2);
  EXPECT_EQ(S::phase_loads(3), 1);
  // A staged load is written to LDS just before the same load of the next tile: in flight then
  // are the tile's 5 other loads (no scale loads with PerTensor): vmcnt(5) before each ds_write.
  EXPECT_EQ(S::kStagedWriteVmcnt, 5);
  // The tile loads land by their ds_writes (lgkmcnt), so no L phase waits on vmcnt.
  for (int c = 0; c < 4; ++c) EXPECT_FALSE(S::counts_vm(c)) << "L_" << c;
}

// Cdna3Default with gfx942's direct-to-LDS loads (4 bytes per lane: 64 x 4 B / 64 B = 4 rows per
// wave load): A 128 / 4 / 4 = 8 loads, a B part 64 / 4 / 4 = 4. a_phase(j) = 1 + 3j / 8: A0..A2
// in L_1, A3..A5 in L_2, A6, A7 in L_3. Per phase 4, 3 + 4, 3 + 4, 2 + 4 = 4, 7, 7, 6 (24).
TEST(BufferLdsPingPongSchedule, Cdna3DefaultDirectToLds) {
  using S = Schedule<Cdna3Default<>, PerTensor, arch::DirectToLds>;
  EXPECT_FALSE(S::kStaged);
  EXPECT_EQ(S::kLoadsPerTile, 24);
  EXPECT_EQ(S::phase_loads(0), 4);
  EXPECT_EQ(S::phase_loads(1), 7);
  EXPECT_EQ(S::phase_loads(2), 7);
  EXPECT_EQ(S::phase_loads(3), 6);
  // As for Cdna4Default: L_0: tile s-1 (24) + L_0 of s (4) = 28; L_1: L_1..L_3 of s-1 (20) + L_0,
  // L_1 of s (11) = 31; L_2: L_2, L_3 of s-1 (13) + L_0..L_2 of s (18) = 31; L_3: after A7, B part
  // 2 (4) + tile s (24) = 28 (docs/gfx942_tile_loads.md's vmcnt(28|31|31|28)).
  EXPECT_EQ(S::kVmWait<0>, 28);
  EXPECT_EQ(S::kVmWait<1>, 31);
  EXPECT_EQ(S::kVmWait<2>, 31);
  EXPECT_EQ(S::kVmWait<3>, 28);
}

// Cdna4KBlocked with Blockwise<1, 128, 128> (gfx950): 256 x 128 x 128, 4 waves (4 x 1) of 64 x 128.
//   A: 256 / 8 / 4 = 8 loads; a B part: 32 rows x 1 wave column: 32 / 8 / 4 = 1. Scales: one
//   A load (64 rows / 64 lanes) and one B load (a 128-column scale block spans the wave tile),
//   last in L_0. a_phase(j) = 1 + 3j / 8: A0..A2 in L_1, A3..A5 in L_2, A6, A7 in L_3. Per phase:
//   L_0 = B part 3 + 2 scale loads (3); L_1 = 3 + 1 (4); L_2 = 3 + 1 (4); L_3 = 2 + 1 (3): 14.
TEST(BufferLdsPingPongSchedule, Cdna4KBlockedBlockwise) {
  using S = Schedule<Cdna4KBlocked<>, Blockwise<1, 128, 128>>;
  EXPECT_TRUE(S::kLoadsInMPhase);
  EXPECT_EQ(S::kScaleLoads, 2);
  EXPECT_EQ(S::kLoadsPerTile, 12);  // the tile loads; the scale loads come on top
  EXPECT_EQ(S::phase_loads(0), 3);
  EXPECT_EQ(S::phase_loads(1), 4);
  EXPECT_EQ(S::phase_loads(2), 4);
  EXPECT_EQ(S::phase_loads(3), 3);
  //   L_0: L_1 reads B part 2 of s (last in L_3 of s-2): tile s-1 (14) + L_0 of s (3) = 17.
  //   L_1: B part 3 of s, first in L_0 of s-1: its 2 scale loads + L_1..L_3 of s-1 (11) + L_0,
  //        L_1 of s (7) = 20.
  //   L_2: B part 0 of s+1, last in L_1 of s-1: L_2, L_3 of s-1 (7) + L_0..L_2 of s (11) = 18.
  //   L_3: L_0 of s+1 reads tile s+1's scales, the last loads of L_0 of s: L_1..L_3 of s
  //        (4 + 4 + 3) = 11.
  EXPECT_EQ(S::kVmWait<0>, 17);
  EXPECT_EQ(S::kVmWait<1>, 20);
  EXPECT_EQ(S::kVmWait<2>, 18);
  EXPECT_EQ(S::kVmWait<3>, 11);
}

TEST(BufferLdsPingPongSupports, WhyNot) {
  using Good = BufferLdsPingPongSupports<Cdna4Default<>, PerTensor, LayoutB::kNK, 0>;
  EXPECT_TRUE(Good::value);
  EXPECT_EQ(Good::kWhyNot, nullptr);
  // mk_kn_mn: B's rows are K, not the N rows the loads fill.
  using KN = BufferLdsPingPongSupports<Cdna4Default<>, PerTensor, LayoutB::kKN, 0>;
  static_assert(!KN::value);
  ASSERT_NE(KN::kWhyNot, nullptr);
  EXPECT_STREQ(KN::kWhyNot, "B must be stored N x K (mk_nk_mn)");
  // A scale block of 64 K over K tiles of 128: promotion would be twice per K tile.
  using Straddles =
      BufferLdsPingPongSupports<Cdna4KBlocked<>, Blockwise<1, 128, 64>, LayoutB::kNK, 0>;
  static_assert(!Straddles::value);
  ASSERT_NE(Straddles::kWhyNot, nullptr);
  EXPECT_STREQ(Straddles::kWhyNot,
               "promotion must be once per K tile (K-blocked scales: a whole number of K tiles per "
               "scale block)");
}

}  // namespace
}  // namespace fp8gemm
