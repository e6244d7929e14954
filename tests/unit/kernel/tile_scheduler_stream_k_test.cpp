// SPDX-License-Identifier: MIT
// The persistent scheduler's stream-K tail (PersistentTileScheduler, Arguments::stream_k), on the
// host. Checked for many tile counts, K depths and grids: every (tile, k-block) is computed
// exactly once; each tile has exactly one owner (the piece ending at its last k-block, which
// stores it) and at most one other piece, from CTA `contributor` (owner - 1), right before the
// owner's in K; every CTA starts the tail at k-block 0 of a tile when its run ends inside one;
// a CTA contributes at most once, and only with its first stream-K
// piece (so no CTA waits on one that waits); the CTAs' stream-K shares differ by at most one
// k-block; the whole tiles before the tail are whole waves. A few counts are pinned as numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

using S = PersistentTileScheduler<Sm90WgmmaDefault<>>;

typename S::Params params(int tiles_m, int tiles_n, int k_tiles, int grid, int group_m = 8) {
  typename S::Params p;
  p.tiles_m = tiles_m, p.tiles_n = tiles_n, p.group_m = group_m;
  p.grid = grid, p.split_k = 1, p.k_tiles = k_tiles, p.k_tiles_per_split = k_tiles;
  p.sk_tiles = S::stream_k_tiles(tiles_m * tiles_n, grid);
  return p;
}

// The tail is the partial wave plus one full wave, or nothing when the waves are whole or the
// tiles fit one wave. Pinned: the bar shapes with 128 x 128 tiles on the H200's 132 SMs.
TEST(StreamKTail, TailTileCounts) {
  EXPECT_EQ(S::stream_k_tiles(4096, 132), 136);  // 8192^3: 31 waves + 4 tiles
  EXPECT_EQ(S::stream_k_tiles(1024, 132), 232);  // 4096^3: 7 waves + 100 tiles
  EXPECT_EQ(S::stream_k_tiles(3584, 132), 152);  // 2048 x 28672 x 8192
  EXPECT_EQ(S::stream_k_tiles(2048, 132), 200);  // 4096 x 8192 x 8192
  EXPECT_EQ(S::stream_k_tiles(1056, 132), 0);    // 8 whole waves
  EXPECT_EQ(S::stream_k_tiles(132, 132), 0);
  EXPECT_EQ(S::stream_k_tiles(64, 132), 0);  // one partial wave: no tail to share (use split_k)
  EXPECT_EQ(S::stream_k_tiles(133, 132), 133);
}

// 8192^3 on 132 SMs: 64 k-blocks per tile, 136 tail tiles, W = 8704 units, 65.9 per CTA. CTA 0
// runs [0, 65): first the first block of tail tile 1 (contributed), then all of tile 0 (its own,
// no contributor). CTA 1 runs [65, 131): first blocks 0-2 of tile 2 (contributed), then blocks
// 1-63 of tile 1, which it owns, adding CTA 0's block.
TEST(StreamKTail, PinnedPiecesAt8192Cubed) {
  auto const p = params(64, 64, 64, 132);
  ASSERT_EQ(p.sk_tiles, 136);
  EXPECT_EQ(S::run_begin(p, 1), 65);
  EXPECT_EQ(S::run_begin(p, 2), 131);
  EXPECT_EQ(S::run_begin(p, 132), 8704);
  ASSERT_EQ(S::count(p, 0), 30 + 2);
  ASSERT_EQ(S::count(p, 1), 30 + 2);
  auto const a0 = S::item(p, 0, 30), a1 = S::item(p, 0, 31);
  auto const b0 = S::item(p, 1, 30), b1 = S::item(p, 1, 31);
  EXPECT_TRUE(a0.contribute);
  EXPECT_EQ(a0.k_tile_begin, 0);
  EXPECT_EQ(a0.k_tile_end, 1);
  EXPECT_FALSE(a1.contribute);
  EXPECT_EQ(a1.k_tile_begin, 0);
  EXPECT_EQ(a1.k_tile_end, 64);
  EXPECT_EQ(a1.contributor, -1);
  EXPECT_TRUE(b0.contribute);
  EXPECT_EQ(b0.k_tile_begin, 0);
  EXPECT_EQ(b0.k_tile_end, 3);
  EXPECT_FALSE(b1.contribute);
  EXPECT_EQ(b1.m, a0.m);  // the tile CTA 0 contributed to
  EXPECT_EQ(b1.n, a0.n);
  EXPECT_EQ(b1.k_tile_begin, 1);
  EXPECT_EQ(b1.k_tile_end, 64);
  EXPECT_EQ(b1.contributor, 0);
}

struct Piece {
  int cta, index, begin, end;
  bool contribute;
  int contributor;
};

TEST(StreamKTail, EveryKBlockOnceOneOwnerContributorsInKOrder) {
  for (int tiles_m : {1, 3, 8, 32})
    for (int tiles_n : {1, 5, 17, 64})
      for (int k_tiles : {1, 2, 7, 64, 224})
        for (int sms : {1, 4, 13, 132}) {
          int const tiles = tiles_m * tiles_n;
          int const grid = std::min(sms, tiles);  // initialize: min(SMs, items)
          auto const p = params(tiles_m, tiles_n, k_tiles, grid);
          SCOPED_TRACE(::testing::Message()
                       << tiles_m << "x" << tiles_n << " tiles, " << k_tiles << " k-blocks, grid "
                       << grid << ", tail " << p.sk_tiles);
          int const whole = tiles - p.sk_tiles;
          ASSERT_EQ(whole % grid, 0);
          std::vector<std::vector<Piece>> by_tile(static_cast<std::size_t>(tiles));
          std::vector<int> done(static_cast<std::size_t>(tiles) * k_tiles, 0);
          long long most = 0, fewest = 1LL << 60;
          for (int c = 0; c < grid; ++c) {
            int contributions = 0;
            long long sk_blocks = 0;
            for (int i = 0; i < S::count(p, c); ++i) {
              auto const t = S::item(p, c, i);
              ASSERT_TRUE(t.store);
              ASSERT_LT(t.k_tile_begin, t.k_tile_end);  // no empty piece
              ASSERT_LE(t.k_tile_end, k_tiles);
              int const tile = t.m * tiles_n + t.n;
              for (int kb = t.k_tile_begin; kb < t.k_tile_end; ++kb)
                ++done[static_cast<std::size_t>(tile) * k_tiles + kb];
              if (i < whole / grid) {  // a whole tile
                ASSERT_EQ(t.k_tile_begin, 0);
                ASSERT_EQ(t.k_tile_end, k_tiles);
                ASSERT_FALSE(t.contribute);
                ASSERT_EQ(t.contributor, -1);
                continue;
              }
              sk_blocks += t.k_tile_end - t.k_tile_begin;
              if (t.contribute) {
                ++contributions;
                ASSERT_EQ(i, whole / grid) << "only a CTA's first stream-K piece contributes";
              }
              if (i == whole / grid && S::run_begin(p, c + 1) % k_tiles != 0) {
                ASSERT_EQ(t.k_tile_begin, 0) << "a run ending inside a tile starts at k-block 0";
              }
              by_tile[static_cast<std::size_t>(tile)].push_back(
                  {c, i, t.k_tile_begin, t.k_tile_end, t.contribute, t.contributor});
            }
            ASSERT_LE(contributions, 1);
            if (p.sk_tiles > 0)
              most = std::max(most, sk_blocks), fewest = std::min(fewest, sk_blocks);
          }
          if (p.sk_tiles > 0) {
            ASSERT_LE(most - fewest, 1);
          }
          for (int v : done) ASSERT_EQ(v, 1);
          for (auto const& pieces : by_tile) {
            if (pieces.empty()) continue;  // a whole tile
            // the owner: the piece at the last k-block, last by CTA; at most one more, the
            // previous CTA's, right before it in K
            ASSERT_LE(pieces.size(), 2u);
            auto const& owner = pieces.back();
            ASSERT_FALSE(owner.contribute);
            ASSERT_EQ(owner.end, k_tiles);
            if (pieces.size() == 2) {
              ASSERT_EQ(owner.contributor, owner.cta - 1);
              ASSERT_TRUE(pieces[0].contribute);
              ASSERT_EQ(pieces[0].cta, owner.cta - 1);
              ASSERT_EQ(pieces[0].begin, 0);
              ASSERT_EQ(pieces[0].end, owner.begin);
            } else {
              ASSERT_EQ(owner.contributor, -1);
              ASSERT_EQ(owner.begin, 0);
            }
          }
        }
}

}  // namespace
}  // namespace fp8gemm
