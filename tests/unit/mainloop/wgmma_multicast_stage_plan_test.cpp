// SPDX-License-Identifier: MIT
// The TMA + WGMMA mainloop's stage bookkeeping with 2-CTA clusters (TmaWgmmaMainloop::stage_plan,
// the tensor maps' boxes, the empty-barrier count), on the host. A multicast hang comes from a
// full barrier that expects other bytes than land in it, or from a stage rewritten before both
// CTAs' consumers freed it; both are checked here:
//  - per stage and CTA, the bytes that land (each rank's copies: a multicast one in both CTAs, a
//    plain one in its own) equal the CTA's expect_tx, for both ranks, kNone / kA / kB, small M;
//  - the landing rows cover each operand tile's rows exactly once;
//  - the tensor maps' boxes are the copies' rows (the lost attempt's bug: a whole-tile box with
//    half-tile bookkeeping);
//  - a simulation of both CTAs' rings (mbarrier phases with transaction counts, random order of
//    producers, copies in flight and consumer warps) over tiles of several k-block counts: it
//    never deadlocks, a copy never lands in a stage a consumer still reads, and every consumer
//    reads every k-block's both halves in order.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

/// Promoted, or FastAccumulation for the 128 x 256 tiles (promoted ones would not fit).
template <class Policy>
using MainloopFor = TmaWgmmaMainloop<Policy, PerTensor, Policy::kBlockN == 256 ? 0 : 128>;

/// Bytes and rows landing in CTA `dst` per stage, from the copies of every rank.
template <class Policy>
void check_plan(int m) {
  using ML = MainloopFor<Policy>;
  constexpr int kCluster = Policy::kClusterSize;
  for (int dst = 0; dst < kCluster; ++dst) {
    std::uint64_t bytes = 0;
    std::vector<int> rows_a(Policy::kBlockM, 0), rows_b(Policy::kBlockN, 0);
    for (int src = 0; src < kCluster; ++src) {
      auto const plan = ML::stage_plan(m, src);
      EXPECT_EQ(plan.tx_bytes, ML::stage_plan(m, 0).tx_bytes) << "rank-independent expect_tx";
      auto land = [&](typename ML::StageCopy const& c, std::vector<int>& rows) {
        if (!c.multicast && src != dst) return;  // a plain copy lands in its own CTA only
        bytes += static_cast<std::uint64_t>(c.rows) * ML::kBlockK;
        ASSERT_GE(c.smem_row, 0);
        ASSERT_LE(c.smem_row + c.rows, static_cast<int>(rows.size()));
        ASSERT_EQ(c.smem_row * ML::kBlockK % 1024, 0) << "swizzle atom alignment";
        for (int r = c.smem_row; r < c.smem_row + c.rows; ++r) ++rows[r];
      };
      land(plan.a, rows_a);
      land(plan.b, rows_b);
    }
    EXPECT_EQ(bytes, ML::stage_plan(m, dst).tx_bytes) << "M " << m << " CTA " << dst;
    int const a_rows = Policy::kMulticastA ? Policy::kBlockM : ML::a_box_rows(m);
    for (int r = 0; r < Policy::kBlockM; ++r)
      ASSERT_EQ(rows_a[r], r < a_rows ? 1 : 0) << "A row " << r << " M " << m;
    for (int r = 0; r < Policy::kBlockN; ++r) ASSERT_EQ(rows_b[r], 1) << "B row " << r;
  }
}

/// The tensor maps' boxes are the copies' rows (one function makes both).
template <class Policy>
void check_boxes(int m, int n, int k) {
  using ML = MainloopFor<Policy>;
  static std::vector<std::uint8_t> a(16), b(16);  // never read: only the maps' fields matter
  typename ML::Arguments args;
  args.a = {reinterpret_cast<typename ML::ElementA const*>(a.data()), k, m, k};
  args.b = {reinterpret_cast<typename ML::ElementB const*>(b.data()), k, n, k};
  auto const plan = ML::stage_plan(m, 1);
  auto const map_a = ML::map_a(args), map_b = ML::map_b(args);
  EXPECT_EQ(static_cast<int>(map_a.box_outer), plan.a.rows);
  EXPECT_EQ(static_cast<int>(map_b.box_outer), plan.b.rows);
  EXPECT_EQ(map_a.box_inner, 128u);
  EXPECT_EQ(static_cast<std::uint64_t>(map_a.box_outer + (plan.a.multicast ? plan.a.rows : 0) +
                                       map_b.box_outer + (plan.b.multicast ? plan.b.rows : 0)) *
                map_a.box_inner,
            plan.tx_bytes);
  EXPECT_TRUE(arch::check_tma_tensor_2d(map_a).ok());
  EXPECT_TRUE(arch::check_tma_tensor_2d(map_b).ok());
}

TEST(WgmmaMulticastStagePlan, ExpectTxEqualsLandingBytes) {
  for (int m : {1, 7, 16, 40, 64, 65, 100, 127, 128, 129, 300, 4096}) {
    check_plan<Sm90WgmmaDefault<>>(m);
    check_plan<Sm90WgmmaDefaultMulticastA<>>(m);
    check_plan<Sm90WgmmaDefaultMulticastB<>>(m);
    check_plan<Sm90WgmmaFastMulticastA<>>(m);
    check_plan<Sm90WgmmaFastMulticastB<>>(m);
    check_plan<WgmmaTilePolicy<64, 64, 1, 8, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               WgmmaMulticast::kA>>(m);
    check_plan<WgmmaTilePolicy<64, 64, 1, 8, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               WgmmaMulticast::kB>>(m);
    // swapped: B's 128 rows (the wgmma M) in two multicast halves, one consumer's each; A's
    // BlockMCols rows (the wgmma N, 104 no multiple of 16) shrink to M as unclustered
    check_plan<Sm90WgmmaMidMMulticastB<104>>(m);
    check_plan<Sm90WgmmaMidMMulticastB<64>>(m);
    check_plan<WgmmaSwapABPolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaMulticast::kA>>(m);
  }
  // kA: the half box is fixed (no small-M shrinking), 2 x 64 + 128 rows per stage
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefaultMulticastA<>>::stage_plan(1, 0).tx_bytes, 256u * 128u);
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefaultMulticastA<>>::stage_plan(1, 1).a.smem_row, 64);
  // kB keeps A's small-M box: 8 + 2 x 64 rows
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefaultMulticastB<>>::stage_plan(1, 0).tx_bytes, 136u * 128u);
  EXPECT_EQ(MainloopFor<Sm90WgmmaFastMulticastB<>>::stage_plan(4096, 1).b.smem_row, 128);
  // swapped kB at M = 200: A's 104 rows and both 64-row halves of B, rank 1's into consumer 1's
  EXPECT_EQ(MainloopFor<Sm90WgmmaMidMMulticastB<104>>::stage_plan(200, 0).tx_bytes, 232u * 128u);
  EXPECT_EQ(MainloopFor<Sm90WgmmaMidMMulticastB<104>>::stage_plan(200, 1).b.smem_row, 64);
}

TEST(WgmmaMulticastStagePlan, TensorMapBoxesAreTheCopies) {
  for (int m : {1, 40, 100, 4096}) {
    check_boxes<Sm90WgmmaDefault<>>(m, 4096, 512);
    check_boxes<Sm90WgmmaDefaultMulticastA<>>(m, 4096, 512);
    check_boxes<Sm90WgmmaDefaultMulticastB<>>(m, 4096, 512);
    check_boxes<Sm90WgmmaFastMulticastA<>>(m, 4096, 512);
    check_boxes<Sm90WgmmaFastMulticastB<>>(m, 4096, 512);
    check_boxes<Sm90WgmmaMidMMulticastB<104>>(m, 4096, 512);
  }
}

TEST(WgmmaMulticastStagePlan, EmptyBarrierCountsBothCtas) {
  // one arrival per consumer warp of each CTA: 2 consumers x 4 warps x 2 CTAs
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefaultMulticastA<>>::kEmptyArrivals, 16);
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefault<>>::kEmptyArrivals, 8);
  EXPECT_EQ(MainloopFor<Sm90WgmmaDefaultMulticastA<>>::kClusterMask, 0x3);
}

/// One mbarrier: a phase completes when `count` arrivals were made and the transaction count is
/// back to 0 (bytes may land before they are expected: the count goes negative meanwhile).
struct SimBarrier {
  int count = 1, pending = 1, phase = 0;
  std::int64_t tx = 0;
  void init(int c) { count = pending = c, phase = 0, tx = 0; }
  void complete_if_done() {
    if (pending == 0 && tx == 0) pending = count, phase ^= 1;
  }
  void arrive(std::int64_t expect = 0) {
    EXPECT_GT(pending, 0);
    tx += expect;
    --pending;
    complete_if_done();
  }
  void complete_tx(std::int64_t bytes) {
    tx -= bytes;
    complete_if_done();
  }
  /// try_wait.parity: the phase with this parity has completed.
  bool passed(int parity) const { return phase != parity; }
};

/// Both CTAs' rings under a random interleaving. Stage content is modelled per 8-row block: the
/// k-block id written there. Returns false on a deadlock (no actor can move).
template <class Policy>
bool simulate(std::vector<int> const& k_blocks_per_tile, int m, std::uint32_t seed) {
  using ML = MainloopFor<Policy>;
  constexpr int kCluster = Policy::kClusterSize, kStages = Policy::kStages;
  constexpr int kWarps = Policy::kConsumersPerTile * 4;
  int const a_blocks = Policy::kBlockM / 8, b_blocks = Policy::kBlockN / 8;
  struct Cta {
    SimBarrier full[kStages], empty[kStages];
    std::vector<int> a[kStages], b[kStages];  // k-block id per 8-row block, -1 unwritten
    int readers[kStages] = {};                // consumer warps inside the stage now
  };
  std::vector<Cta> cta(kCluster);
  for (auto& c : cta)
    for (int s = 0; s < kStages; ++s) {
      c.full[s].init(1);
      c.empty[s].init(ML::kEmptyArrivals);
      c.a[s].assign(a_blocks, -1);
      c.b[s].assign(b_blocks, -1);
    }
  std::vector<int> sequence;  // the k-block ids every ring user walks, in order
  for (std::size_t t = 0; t < k_blocks_per_tile.size(); ++t)
    for (int kb = 0; kb < k_blocks_per_tile[t]; ++kb)
      sequence.push_back(static_cast<int>(t) * 1000 + kb);
  int const total = static_cast<int>(sequence.size());
  struct Copy {
    int dst, stage, kb;
    bool is_a;
    int first_block, blocks;  // 8-row blocks of the operand tile it writes
    std::int64_t bytes;       // the box's bytes, completed on the destination's full barrier
  };
  std::vector<Copy> in_flight;
  struct Producer {
    RingPosition pos;
    int next = 0;
  };
  struct Consumer {
    RingPosition pos;
    int next = 0;
    bool inside = false;  // passed full, not yet released
  };
  std::vector<Producer> producers(kCluster);
  std::vector<std::vector<Consumer>> consumers(kCluster, std::vector<Consumer>(kWarps));
  std::mt19937 rng(seed);
  auto const plan0 = ML::stage_plan(m, 0);
  for (int steps = 0; steps < 1000000; ++steps) {
    std::vector<int> ready;  // actor ids that can move
    int const n_actors = kCluster + kCluster * kWarps + 1;
    for (int r = 0; r < kCluster; ++r) {
      auto const& p = producers[r];
      if (p.next < total && cta[r].empty[p.pos.stage].passed(p.pos.phase ^ 1)) ready.push_back(r);
      for (int w = 0; w < kWarps; ++w) {
        auto const& c = consumers[r][w];
        if (c.next < total && (c.inside || cta[r].full[c.pos.stage].passed(c.pos.phase)))
          ready.push_back(kCluster + r * kWarps + w);
      }
    }
    if (!in_flight.empty()) ready.push_back(n_actors - 1);
    if (ready.empty()) {
      bool done = in_flight.empty();
      for (auto const& p : producers) done = done && p.next == total;
      for (auto const& row : consumers)
        for (auto const& c : row) done = done && c.next == total;
      return done;
    }
    int const actor = ready[rng() % ready.size()];
    if (actor < kCluster) {  // producer r: expect_tx, then its copies go in flight
      int const r = actor;
      auto& p = producers[r];
      int const s = p.pos.stage, kb = sequence[static_cast<std::size_t>(p.next)];
      cta[r].full[s].arrive(ML::stage_plan(m, r).tx_bytes);
      auto const plan = ML::stage_plan(m, r);
      for (int dst = 0; dst < kCluster; ++dst) {
        if (plan.a.multicast || dst == r)
          in_flight.push_back({dst, s, kb, true, plan.a.smem_row / 8, (plan.a.rows + 7) / 8,
                               std::int64_t{plan.a.rows} * ML::kBlockK});
        if (plan.b.multicast || dst == r)
          in_flight.push_back({dst, s, kb, false, plan.b.smem_row / 8, plan.b.rows / 8,
                               std::int64_t{plan.b.rows} * ML::kBlockK});
      }
      p.pos.template advance<kStages>();
      ++p.next;
    } else if (actor == n_actors - 1) {  // one copy lands
      std::size_t const i = rng() % in_flight.size();
      Copy const c = in_flight[i];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(i));
      if (cta[c.dst].readers[c.stage] != 0) return false;  // overwrote a stage being read
      auto& rows = c.is_a ? cta[c.dst].a[c.stage] : cta[c.dst].b[c.stage];
      for (int blk = c.first_block; blk < c.first_block + c.blocks; ++blk) rows[blk] = c.kb;
      cta[c.dst].full[c.stage].complete_tx(c.bytes);
    } else {  // consumer warp: enter (full passed) or leave (release on both CTAs)
      int const r = (actor - kCluster) / kWarps, w = (actor - kCluster) % kWarps;
      auto& c = consumers[r][w];
      int const s = c.pos.stage, kb = sequence[static_cast<std::size_t>(c.next)];
      if (!c.inside) {
        c.inside = true;
        ++cta[r].readers[s];
        int const a_used = Policy::kMulticastA ? a_blocks : (plan0.a.rows + 7) / 8;
        for (int blk = 0; blk < a_used; ++blk)
          if (cta[r].a[s][blk] != kb) return false;  // a half of A missing or stale
        for (int blk = 0; blk < b_blocks; ++blk)
          if (cta[r].b[s][blk] != kb) return false;
      } else {
        c.inside = false;
        --cta[r].readers[s];
        for (int dst = 0; dst < kCluster; ++dst) cta[dst].empty[s].arrive();
        c.pos.template advance<kStages>();
        ++c.next;
      }
    }
  }
  return false;
}

TEST(WgmmaMulticastStagePlan, RingsOfBothCtasNeverDeadlockOrOverwrite) {
  std::vector<std::vector<int>> const schedules = {{1}, {3, 1, 7}, {13, 2, 5, 6, 1}, {64}};
  for (auto const& tiles : schedules)
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
      EXPECT_TRUE(simulate<Sm90WgmmaDefaultMulticastA<>>(tiles, 4096, seed)) << seed;
      EXPECT_TRUE(simulate<Sm90WgmmaDefaultMulticastB<>>(tiles, 4096, seed)) << seed;
      EXPECT_TRUE(simulate<Sm90WgmmaFastMulticastB<>>(tiles, 40, seed)) << seed;
      EXPECT_TRUE(simulate<Sm90WgmmaDefault<>>(tiles, 4096, seed)) << seed;
      EXPECT_TRUE(simulate<Sm90WgmmaMidMMulticastB<104>>(tiles, 200, seed)) << seed;
    }
}

// The control: a full barrier expecting a whole tile while the boxes are halves (the lost
// attempt's bug) must hang in the simulation, i.e. the simulation can see it.
TEST(WgmmaMulticastStagePlan, SimulationCatchesWrongExpectTx) {
  SimBarrier full;
  full.init(1);
  full.arrive(/*expect=*/(2 * 128 + 128) * 128);  // a whole A tile counted per half copy
  full.complete_tx(64 * 128);
  full.complete_tx(64 * 128);
  full.complete_tx(128 * 128);
  EXPECT_FALSE(full.passed(0)) << "never completes: the consumers would wait forever";
}

// The producer's L2 hints (TmaWgmmaMainloop::l2_stream_hints): only a policy that asks for them
// (Sm90WgmmaMediumM), and only while all of M fits one tile row, where each byte of B is read once.
TEST(WgmmaL2StreamHints, OnlyMediumMWithOneTileRow) {
  using Medium = MainloopFor<Sm90WgmmaMediumM<>>;
  static_assert(Sm90WgmmaMediumM<>::kL2StreamHints && Sm90WgmmaMediumM<>::kBlockM == 128);
  for (int m : {1, 8, 96, 127, 128}) EXPECT_TRUE(Medium::l2_stream_hints(m)) << m;
  for (int m : {129, 256, 8192}) EXPECT_FALSE(Medium::l2_stream_hints(m)) << m;
  // the other named policies keep L2's default policy at every M
  for (int m : {1, 64, 128, 8192}) {
    EXPECT_FALSE(MainloopFor<Sm90WgmmaDefault<>>::l2_stream_hints(m)) << m;
    EXPECT_FALSE(MainloopFor<Sm90WgmmaSmallM<>>::l2_stream_hints(m)) << m;
    EXPECT_FALSE(MainloopFor<Sm90WgmmaDecode<16>>::l2_stream_hints(m)) << m;
    EXPECT_FALSE(MainloopFor<Sm90WgmmaDefaultMulticastA<>>::l2_stream_hints(m)) << m;
  }
}

}  // namespace
}  // namespace fp8gemm
