// SPDX-License-Identifier: MIT
// Stream-K's cut of the tiles' k-blocks over the CTAs (kernel/stream_k.hpp, PersistentTileScheduler
// of a StreamK<P> policy), on the host. Checked, for tile counts below, at and above the CTA
// count and K of one to many k-blocks:
//  - every (tile, k-block) is in exactly one segment; the CTAs' shares differ by at most one;
//  - each tile has exactly one final segment (it reaches the tile's last k-block), and its fixup
//    range names exactly the CTAs whose partial sums hold the tile's other k-blocks, all lower
//    than the final one's CTA;
//  - a CTA leaves at most one partial sum, and only from its last segment (one slot per CTA);
//  - owner() against a search of the ranges;
//  - the flag protocol (a final segment waits for its range's slots; a partial raises its slot)
//    completes under random interleavings of the CTAs: no wait can be left hanging;
//  - in the kernel's order (each CTA's segments last to first) the waits do not chain: the last
//    CTA finishes within one share plus one tile of k-blocks;
//  - the scheduler's WorkTiles: the banded order's tiles, the segments' K ranges and slots, and
//    its column groups (the tile rows of a column cut alike, on CTAs g R + r).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

/// CTA c's segments in the kernel's order: last to first (stream_k_segment_before).
std::vector<StreamKSegment> walk(StreamKPlan const& plan, int c) {
  std::vector<StreamKSegment> out;
  for (std::int64_t it = plan.begin(c + 1); it > plan.begin(c);) {
    StreamKSegment const s = stream_k_segment_before(plan, c, it);
    EXPECT_LT(s.kb_begin, s.kb_end);
    EXPECT_EQ(std::int64_t(s.tile) * plan.k_blocks + s.kb_end, it);
    it -= s.kb_end - s.kb_begin;
    out.push_back(s);
  }
  return out;
}

void check_plan(StreamKPlan const& plan) {
  SCOPED_TRACE(::testing::Message() << plan.tiles << " tiles x " << plan.k_blocks
                                    << " k-blocks over " << plan.ctas << " CTAs");
  ASSERT_LE(plan.ctas, plan.iters()) << "the scheduler keeps every CTA's range non-empty";
  std::vector<int> covered(static_cast<std::size_t>(plan.iters()), 0);
  std::vector<int> finals(static_cast<std::size_t>(plan.tiles), 0);
  // per tile, the CTAs that left a partial sum of it
  std::vector<std::vector<int>> partials(static_cast<std::size_t>(plan.tiles));
  std::vector<StreamKSegment> final_of(static_cast<std::size_t>(plan.tiles));
  std::vector<int> final_cta(static_cast<std::size_t>(plan.tiles), -1);
  std::int64_t const fewest = plan.iters() / plan.ctas;
  for (int c = 0; c < plan.ctas; ++c) {
    std::int64_t const share = plan.begin(c + 1) - plan.begin(c);
    EXPECT_TRUE(share == fewest || share == fewest + 1) << "CTA " << c;
    std::vector<StreamKSegment> const segs = walk(plan, c);
    for (std::size_t i = 0; i < segs.size(); ++i) {
      StreamKSegment const& s = segs[i];
      for (int kb = s.kb_begin; kb < s.kb_end; ++kb)
        ++covered[static_cast<std::size_t>(std::int64_t(s.tile) * plan.k_blocks + kb)];
      if (s.final) {
        ++finals[static_cast<std::size_t>(s.tile)];
        final_of[static_cast<std::size_t>(s.tile)] = s;
        final_cta[static_cast<std::size_t>(s.tile)] = c;
      } else {
        EXPECT_EQ(i, 0u) << "CTA " << c
                         << ": a partial sum only from the range's last segment, walked first";
        partials[static_cast<std::size_t>(s.tile)].push_back(c);
      }
    }
    for (std::int64_t it = plan.begin(c); it < plan.begin(c + 1); it += 1 + share / 5)
      ASSERT_EQ(plan.owner(it), c) << "iteration " << it;
    ASSERT_EQ(plan.owner(plan.begin(c + 1) - 1), c);
  }
  for (std::int64_t it = 0; it < plan.iters(); ++it)
    ASSERT_EQ(covered[static_cast<std::size_t>(it)], 1) << "iteration " << it;
  for (int t = 0; t < plan.tiles; ++t) {
    ASSERT_EQ(finals[static_cast<std::size_t>(t)], 1) << "tile " << t;
    StreamKSegment const& f = final_of[static_cast<std::size_t>(t)];
    std::vector<int> const& p = partials[static_cast<std::size_t>(t)];
    ASSERT_EQ(f.fixup_end - f.fixup_begin, static_cast<int>(p.size())) << "tile " << t;
    for (std::size_t i = 0; i < p.size(); ++i)
      EXPECT_EQ(p[i], f.fixup_begin + static_cast<int>(i)) << "tile " << t;
    if (!p.empty()) {
      EXPECT_EQ(f.fixup_end, final_cta[static_cast<std::size_t>(t)]) << "tile " << t;
    }
  }
}

TEST(StreamK, SegmentsCoverEveryKBlockOnceWithOneFinalPerTile) {
  for (int tiles : {1, 2, 5, 96, 131, 132, 133, 448, 1000})
    for (int k_blocks : {1, 2, 3, 8, 32, 129})
      for (int ctas : {1, 2, 7, 66, 132}) {
        StreamKPlan const plan{tiles, k_blocks, ctas};
        if (plan.ctas > plan.iters()) continue;  // the scheduler shrinks the grid
        check_plan(plan);
      }
}

/// Every CTA runs its segments in order; a final segment with a fixup range waits until those
/// slots' flags are raised; a partial raises its CTA's flag. Random interleavings of the CTAs
/// must all finish (each step picks a CTA that can move).
TEST(StreamK, FlagWaitsAlwaysComplete) {
  std::mt19937 rng(20261205);
  for (StreamKPlan const plan : {StreamKPlan{96, 32, 132}, StreamKPlan{5, 129, 132},
                                 StreamKPlan{448, 32, 132}, StreamKPlan{3, 2, 6}}) {
    std::vector<std::vector<StreamKSegment>> segs;
    for (int c = 0; c < plan.ctas; ++c) segs.push_back(walk(plan, c));
    std::vector<std::size_t> next(static_cast<std::size_t>(plan.ctas), 0);
    std::vector<int> flag(static_cast<std::size_t>(plan.ctas), 0);
    for (int round = 0; round < 20; ++round) {
      std::fill(next.begin(), next.end(), 0);
      std::fill(flag.begin(), flag.end(), 0);
      for (;;) {
        std::vector<int> movable;
        bool left = false;
        for (int c = 0; c < plan.ctas; ++c) {
          std::size_t const i = next[static_cast<std::size_t>(c)];
          if (i == segs[static_cast<std::size_t>(c)].size()) continue;
          left = true;
          StreamKSegment const& s = segs[static_cast<std::size_t>(c)][i];
          bool ready = true;
          for (int w = s.fixup_begin; w < s.fixup_end; ++w)
            ready = ready && flag[static_cast<std::size_t>(w)] == 1;
          if (ready) movable.push_back(c);
        }
        if (!left) break;
        ASSERT_FALSE(movable.empty()) << "every CTA waits: a cycle of stream-K waits";
        int const c = movable[rng() % movable.size()];
        StreamKSegment const& s =
            segs[static_cast<std::size_t>(c)][next[static_cast<std::size_t>(c)]++];
        for (int w = s.fixup_begin; w < s.fixup_end; ++w) flag[static_cast<std::size_t>(w)] = 0;
        if (!s.final) flag[static_cast<std::size_t>(c)] = 1;
      }
      for (int f : flag) EXPECT_EQ(f, 0) << "every raised flag is waited for once";
    }
  }
}

/// Time, one unit per k-block: a CTA runs its segments in the kernel's order, a final segment
/// with a fixup range finishes no earlier than the partial sums it adds. The last CTA must finish
/// within one share plus one tile's k-blocks of the start: no wait chains across the grid (walked
/// first to last, each CTA waited at its start for the whole range of the one below: up to 27x
/// the share at 1024 tiles x 32 k-blocks on 132 CTAs).
TEST(StreamK, WaitsDoNotChainAcrossTheGrid) {
  for (StreamKPlan const plan :
       {StreamKPlan{1024, 32, 132}, StreamKPlan{200, 16, 132}, StreamKPlan{144, 32, 132},
        StreamKPlan{60, 24, 7}, StreamKPlan{96, 64, 132}, StreamKPlan{448, 32, 132}}) {
    std::vector<std::int64_t> partial_done(static_cast<std::size_t>(plan.ctas), -1);
    std::int64_t makespan = 0;
    for (int c = 0; c < plan.ctas; ++c) {  // waits go to lower CTAs only: ascending order works
      std::int64_t t = 0;
      for (StreamKSegment const& s : walk(plan, c)) {
        t += s.kb_end - s.kb_begin;
        for (int w = s.fixup_begin; w < s.fixup_end; ++w) {
          ASSERT_GE(partial_done[static_cast<std::size_t>(w)], 0)
              << "CTA " << w << " has no partial";
          t = std::max(t, partial_done[static_cast<std::size_t>(w)]);
        }
        if (!s.final) partial_done[static_cast<std::size_t>(c)] = t;
      }
      makespan = std::max(makespan, t);
    }
    std::int64_t const share = (plan.iters() + plan.ctas - 1) / plan.ctas;
    EXPECT_LE(makespan, share + plan.k_blocks)
        << plan.tiles << " tiles x " << plan.k_blocks << " k-blocks over " << plan.ctas;
  }
}

/// The scheduler's walk: stream_k_work_before turns each segment into the banded order's tile with
/// its K range; the grid is min(SMs, tiles x k-blocks).
TEST(StreamK, SchedulerWorkTilesFollowTheBandedOrder) {
  using S = PersistentTileScheduler<StreamK<Sm90WgmmaDefault<>>>;
  static_assert(S::kStreamK && !PersistentTileScheduler<Sm90WgmmaDefault<>>::kStreamK);
  typename S::Params p;
  p.tiles_m = 2, p.tiles_n = 48, p.k_tiles = 32, p.band_m = 2, p.grid = 132;
  std::vector<int> covered(static_cast<std::size_t>(2 * 48 * 32), 0);
  StreamKPlan const plan = S::stream_k_plan(p);
  for (int c = 0; c < p.grid; ++c)
    for (std::int64_t it = plan.begin(c + 1); it > plan.begin(c);) {
      WorkTile const w = S::stream_k_work_before(p, c, it);
      TileCoord const t =
          banded_tile(static_cast<int>((it - 1) / p.k_tiles), p.tiles_m, p.tiles_n, 2);
      EXPECT_EQ(w.m, t.m);
      EXPECT_EQ(w.n, t.n);
      EXPECT_EQ(w.m0, t.m * 128);
      EXPECT_EQ(w.n0, t.n * 128);
      EXPECT_EQ(w.k_tile_end, (it - 1) % p.k_tiles + 1);
      EXPECT_EQ(w.partial_slot >= 0, w.k_tile_end < p.k_tiles);
      if (w.partial_slot >= 0) {
        EXPECT_EQ(w.partial_slot, c);
      }
      for (int kb = w.k_tile_begin; kb < w.k_tile_end; ++kb)
        ++covered[static_cast<std::size_t>((w.m * p.tiles_n + w.n) * p.k_tiles + kb)];
      it -= w.k_tile_end - w.k_tile_begin;
    }
  for (int v : covered) ASSERT_EQ(v, 1);
}

/// The hybrid's split: every tile cut up to one wave, none for whole waves, else the partial
/// wave's tiles and one whole wave.
TEST(StreamK, CutTilesAreThePartialWaveAndOneWholeWave) {
  EXPECT_EQ(stream_k_tiles(96, 132), 96);
  EXPECT_EQ(stream_k_tiles(132, 132), 132);
  EXPECT_EQ(stream_k_tiles(264, 132), 0);
  EXPECT_EQ(stream_k_tiles(133, 132), 133);
  EXPECT_EQ(stream_k_tiles(272, 132), 140);
  EXPECT_EQ(stream_k_tiles(1024, 132), 232);
  EXPECT_EQ(stream_k_tiles(5, 1), 0);
}

/// The scheduler's whole walk, as each CTA's producer and consumers run it (more() / next()):
/// whole tiles first (the banded order's first tiles, c + j · grid, full K, stored), then the cut
/// tiles' segments; every (tile, k-block) once; one final segment per tile whose fixup CTAs left
/// partial sums of that tile; the waits do not chain (the last CTA finishes within its share of
/// whole tiles, one share of the cut and one tile of k-blocks). Column groups (2-8 tile rows in
/// one band, dividing the grid): CTA g R + r walks row r of its group's column segments, the same
/// columns and k-blocks as the group's other CTAs; 3 rows on 7 CTAs, 4 rows in bands of 3 (16
/// CTAs) and 1 row are cut tile by tile.
TEST(StreamK, HybridWalkRunsWholeWavesThenCutsTheRest) {
  using S = PersistentTileScheduler<StreamK<Sm90WgmmaDefault<>>>;
  struct Case {
    int tiles_m, tiles_n, k_tiles, sms;
  };
  for (Case const c :
       {Case{16, 17, 56, 132}, Case{8, 33, 32, 132}, Case{2, 48, 32, 132}, Case{11, 13, 7, 132},
        Case{32, 32, 56, 132}, Case{5, 9, 3, 7}, Case{1, 1, 2, 132}, Case{2, 134, 2, 132},
        Case{4, 70, 16, 132}, Case{6, 30, 8, 132}, Case{3, 20, 5, 7}, Case{2, 3, 1, 132},
        Case{4, 2, 2, 132}}) {
    SCOPED_TRACE(::testing::Message() << c.tiles_m << " x " << c.tiles_n << " tiles, " << c.k_tiles
                                      << " k-blocks, " << c.sms << " SMs");
    typename S::Params p;
    p.tiles_m = c.tiles_m, p.tiles_n = c.tiles_n, p.k_tiles = c.k_tiles;
    p.k_tiles_per_split = c.k_tiles;
    S::stream_k_initialize(p, c.sms, 0);
    int const tiles = c.tiles_m * c.tiles_n;
    EXPECT_EQ(p.grid, std::min<std::int64_t>(c.sms, std::int64_t(tiles) * c.k_tiles));
    EXPECT_EQ(p.whole_tiles % p.grid, 0) << "whole waves only";
    // column groups: where the banded order is one band of 2-8 rows that divide the grid
    int const r = p.stream_k_group;
    bool const columns =
        c.tiles_m >= 2 && c.tiles_m <= 8 && p.band_m >= c.tiles_m && p.grid % c.tiles_m == 0;
    EXPECT_EQ(r, columns ? c.tiles_m : 1);
    EXPECT_EQ(p.whole_tiles, columns ? tiles - stream_k_tiles(c.tiles_n, p.grid / r) * r
                                     : tiles - stream_k_tiles(tiles, p.grid));
    // a group's CTAs walk the same column segments, each its own row: (n, k range) per step
    std::vector<std::vector<std::vector<int>>> steps(static_cast<std::size_t>(p.grid));
    std::vector<int> covered(static_cast<std::size_t>(tiles * c.k_tiles), 0);
    std::vector<std::vector<int>> partial_of(static_cast<std::size_t>(tiles));  // CTAs, per tile
    std::vector<std::int64_t> partial_done(static_cast<std::size_t>(p.grid), -1);
    std::int64_t makespan = 0;
    for (int cta = 0; cta < p.grid; ++cta) {  // waits go to lower CTAs: ascending order works
      S walk(p, cta, p.grid, 0);
      std::int64_t t = 0;
      bool cut_started = false;
      while (walk.more()) {
        WorkTile const w = walk.next();
        ASSERT_TRUE(w.valid);
        ASSERT_LT(w.k_tile_begin, w.k_tile_end);
        int const tile = [&] {  // the tile's place in the banded order
          for (int i = 0; i < tiles; ++i) {
            TileCoord const b = banded_tile(i, p.tiles_m, p.tiles_n, p.band_m);
            if (b.m == w.m && b.n == w.n) return i;
          }
          return -1;
        }();
        ASSERT_GE(tile, 0);
        bool const whole = tile < p.whole_tiles;
        if (whole) {
          EXPECT_FALSE(cut_started) << "whole tiles come before the cut ones";
          EXPECT_EQ(tile % p.grid, cta);
          EXPECT_EQ(w.k_tile_begin, 0);
          EXPECT_EQ(w.k_tile_end, c.k_tiles);
          EXPECT_EQ(w.partial_slot, -1);
          EXPECT_EQ(w.fixup_begin, w.fixup_end);
        }
        cut_started = cut_started || !whole;
        if (!whole && r > 1) {
          EXPECT_EQ(w.m, cta % r) << "row r of each column for CTA g R + r";
          steps[static_cast<std::size_t>(cta)].push_back({w.n, w.k_tile_begin, w.k_tile_end});
        }
        for (int kb = w.k_tile_begin; kb < w.k_tile_end; ++kb)
          ++covered[static_cast<std::size_t>(tile * c.k_tiles + kb)];
        t += w.k_tile_end - w.k_tile_begin;
        if (w.partial_slot >= 0) {
          EXPECT_EQ(w.partial_slot, cta);
          EXPECT_EQ(partial_done[static_cast<std::size_t>(cta)], -1) << "one partial per CTA";
          partial_done[static_cast<std::size_t>(cta)] = t;
          partial_of[static_cast<std::size_t>(tile)].push_back(cta);
          continue;
        }
        std::vector<int> const& before = partial_of[static_cast<std::size_t>(tile)];
        std::vector<int> fixups;  // the slots the kernel adds, in its order
        for (int s = w.fixup_begin; s < w.fixup_end; s += w.fixup_stride) fixups.push_back(s);
        EXPECT_EQ(fixups, before) << "the CTAs that left partial sums of tile " << tile;
        for (int b : before) t = std::max(t, partial_done[static_cast<std::size_t>(b)]);
      }
      EXPECT_FALSE(walk.next().valid);
      makespan = std::max(makespan, t);
    }
    for (int v : covered) ASSERT_EQ(v, 1);
    for (int cta = 0; cta < p.grid; ++cta)
      EXPECT_EQ(steps[static_cast<std::size_t>(cta)],
                steps[static_cast<std::size_t>(cta - cta % r)])
          << "CTA " << cta << " walks other column segments than its group's row 0";
    std::int64_t const cut_iters = std::int64_t(tiles - p.whole_tiles) * c.k_tiles;
    EXPECT_LE(makespan, std::int64_t(p.whole_tiles / p.grid) * c.k_tiles +
                            (cut_iters + p.grid - 1) / p.grid + c.k_tiles);
  }
}

/// StreamK<P>'s scheduler refuses split-K in words (clusters and ping-pong are compile errors:
/// its static_assert); Gemm's name says it.
TEST(StreamK, RefusesSplitKAndIsNamed) {
  using S = PersistentTileScheduler<StreamK<Sm90WgmmaMidM<104>>>;
  typename S::Arguments a;
  ProblemShape const problem{256, 4096, 4096};
  EXPECT_TRUE(S::can_implement(problem, a).ok());
  a.split_k = 2;
  EXPECT_EQ(S::can_implement(problem, a).message(),
            "StreamK<P> cuts every tile's K itself: split_k must be 1; got 2");
  using Config = GemmConfig<StreamK<Sm90WgmmaDefault<>>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  std::string const name = Gemm<Config>::name();
  EXPECT_NE(name.find("_streamk"), std::string::npos) << name;
  EXPECT_TRUE(policy_is_valid<StreamK<Sm90WgmmaMidM<104>>>());
}

}  // namespace
}  // namespace fp8gemm
