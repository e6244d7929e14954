// SPDX-License-Identifier: MIT
// The persistent scheduler's tile pairs for 2-CTA clusters (PersistentTileScheduler with a
// multicast policy), on the host: cluster c takes pair items c, c + clusters, ...; rank r of the
// cluster computes the pair's tile r. Checked: every (tile, K tile) is stored exactly once; the
// two tiles of a pair share m (kA) or n (kB) and are neighbours along the other dimension; both
// ranks get the same K range and split (they share every stage); an odd tile count leaves
// rank 1 a tile that is not stored and names its partner's (so its copies stay in the matrix);
// the clusters' shares differ by at most one item; the grid is whole clusters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

template <class Policy>
void check_pairs(bool pair_along_n) {
  using S = PersistentTileScheduler<Policy>;
  static_assert(S::kClusterSize == 2, "a multicast policy pairs tiles");
  for (int tiles_m : {1, 2, 3, 7, 32})
    for (int tiles_n : {1, 2, 5, 64})
      for (int clusters : {1, 3, 66})
        for (auto [k_tiles, split_k] : {std::pair{1, 1}, {64, 1}, {5, 4}, {7, 3}, {64, 2}})
          for (int band_m : {1, 8}) {
            typename S::Params p;
            p.tiles_m = tiles_m, p.tiles_n = tiles_n, p.band_m = band_m;
            p.grid = 2 * clusters;
            p.split_k = split_k, p.k_tiles = k_tiles;
            p.k_tiles_per_split = (k_tiles + split_k - 1) / split_k;
            int const pairs =
                pair_along_n ? tiles_m * ((tiles_n + 1) / 2) : ((tiles_m + 1) / 2) * tiles_n;
            ASSERT_EQ(S::items(p), pairs * split_k);
            std::vector<int> stored(static_cast<std::size_t>(tiles_m) * tiles_n * k_tiles, 0);
            int most = 0, fewest = 1 << 30;
            for (int c = 0; c < clusters; ++c) {
              int mine = 0;
              for (int w = c; w < S::items(p); w += clusters, ++mine) {
                auto const t0 = S::work(p, w, 0), t1 = S::work(p, w, 1);
                // rank 0's tile is always in the matrix and stored
                ASSERT_TRUE(t0.store);
                ASSERT_LT(t0.m, tiles_m);
                ASSERT_LT(t0.n, tiles_n);
                ASSERT_LT(t1.m, tiles_m);  // even the unstored tile is inside: its copies are
                ASSERT_LT(t1.n, tiles_n);
                // same K range and split: both CTAs walk the same k-blocks through the ring
                ASSERT_EQ(t0.k_tile_begin, t1.k_tile_begin);
                ASSERT_EQ(t0.k_tile_end, t1.k_tile_end);
                ASSERT_EQ(t0.split, t1.split);
                ASSERT_EQ(t0.split, w % split_k);
                ASSERT_LE(t0.k_tile_begin, t0.k_tile_end);
                ASSERT_LE(t0.k_tile_end, k_tiles);
                if (pair_along_n) {
                  ASSERT_EQ(t0.m, t1.m);  // kA: the shared A tile
                  ASSERT_EQ(t0.n % 2, 0);
                  if (t1.store) {
                    ASSERT_EQ(t1.n, t0.n + 1);
                  } else {
                    ASSERT_EQ(t0.n + 1, tiles_n) << "only the last, odd tile column is unpaired";
                    ASSERT_EQ(t1.n, t0.n);  // loads its partner's B tile
                  }
                } else {
                  ASSERT_EQ(t0.n, t1.n);  // kB: the shared B tile
                  ASSERT_EQ(t0.m % 2, 0);
                  if (t1.store) {
                    ASSERT_EQ(t1.m, t0.m + 1);
                  } else {
                    ASSERT_EQ(t0.m + 1, tiles_m) << "only the last, odd tile row is unpaired";
                    ASSERT_EQ(t1.m, t0.m);
                  }
                }
                for (auto const& t : {t0, t1})
                  if (t.store)
                    for (int kt = t.k_tile_begin; kt < t.k_tile_end; ++kt)
                      ++stored[(static_cast<std::size_t>(t.m) * tiles_n + t.n) * k_tiles + kt];
              }
              most = std::max(most, mine), fewest = std::min(fewest, mine);
            }
            for (int v : stored)
              ASSERT_EQ(v, 1) << tiles_m << "x" << tiles_n << " clusters " << clusters
                              << " k_tiles " << k_tiles << " split_k " << split_k;
            EXPECT_LE(most - fewest, 1);
          }
}

TEST(TileSchedulerPairs, MulticastAPairsNeighboursInOneTileRow) {
  check_pairs<Sm90WgmmaDefaultMulticastA<>>(/*pair_along_n=*/true);
  check_pairs<Sm90WgmmaFastMulticastA<>>(/*pair_along_n=*/true);
}

TEST(TileSchedulerPairs, MulticastBPairsNeighboursInOneTileColumn) {
  check_pairs<Sm90WgmmaDefaultMulticastB<>>(/*pair_along_n=*/false);
  check_pairs<Sm90WgmmaFastMulticastB<>>(/*pair_along_n=*/false);
}

// Grouped raster over pairs: with kA a wave of consecutive pair items walks band_m tile rows
// down a pair column (the A tiles of band_m rows, each shared by the pair).
TEST(TileSchedulerPairs, GroupedOverPairs) {
  using S = PersistentTileScheduler<Sm90WgmmaDefaultMulticastA<>>;
  typename S::Params p;
  p.tiles_m = 32, p.tiles_n = 32, p.band_m = 8, p.grid = 132;
  p.split_k = 1, p.k_tiles = 4, p.k_tiles_per_split = 4;
  for (int w = 0; w < 8; ++w) {
    EXPECT_EQ(S::work(p, w, 0).m, w);
    EXPECT_EQ(S::work(p, w, 0).n, 0);
    EXPECT_EQ(S::work(p, w, 1).n, 1);
  }
  EXPECT_EQ(S::work(p, 8, 0).n, 2);  // the next pair column of the group
}

// The grid: whole clusters, at most the SMs (rounded down to even), at most 2 x the pairs; an
// unclustered policy keeps min(SMs, items).
TEST(TileSchedulerPairs, GridIsWholeClusters) {
  using S = PersistentTileScheduler<Sm90WgmmaDefaultMulticastB<>>;
  EXPECT_EQ(S::grid_for(1000, 132), 132);
  EXPECT_EQ(S::grid_for(1000, 133), 132);
  EXPECT_EQ(S::grid_for(5, 132), 10);
  EXPECT_EQ(S::grid_for(1, 132), 2);
  EXPECT_EQ(S::grid_for(7, 1), 2);  // one "SM" (host build): still one whole cluster
  using U = PersistentTileScheduler<Sm90WgmmaDefault<>>;
  EXPECT_EQ(U::grid_for(1000, 133), 133);
  EXPECT_EQ(U::grid_for(5, 132), 5);
  ProblemShape const problem{4096, 4096 + 128, 4096};  // 32 x 33 tiles: B pairs along M
  S::Arguments args{1, 8};
  S::Params p;
  ASSERT_TRUE(S::initialize(problem, args, p).ok());
  EXPECT_EQ(S::items(p), 16 * 33);
  EXPECT_EQ(S::grid_x(p) % 2, 0);
  // fewer clusters resident than SMs / 2 (a GPC with an odd number of free SMs): the grid shrinks
  p.grid = 132;
  S::limit_clusters(args, p, 64);
  EXPECT_EQ(S::grid_x(p), 128);
  EXPECT_EQ(p.band_m, 8);  // as requested
  S::limit_clusters(args, p, 100);
  EXPECT_EQ(S::grid_x(p), 128);
  // band_m 0: the automatic height follows the smaller wave (128 x 128 tiles: 11 for 132, 9
  // for 80: 8 x 9 < 80 <= 9 x 10)
  args.band_m = 0, p.grid = 132;
  S::limit_clusters(args, p, 66);
  EXPECT_EQ(p.band_m, 11);
  S::limit_clusters(args, p, 40);
  EXPECT_EQ(S::grid_x(p), 80);
  EXPECT_EQ(p.band_m, 9);
}

// Split-K with pairs: both ranks' tiles take the same split; every split of both tiles appears.
TEST(TileSchedulerPairs, SplitKSameSplitForBothRanks) {
  using S = PersistentTileScheduler<Sm90WgmmaDefaultMulticastA<>>;
  typename S::Params p;
  p.tiles_m = 1, p.tiles_n = 3, p.band_m = 8, p.grid = 2;
  p.split_k = 3, p.k_tiles = 8, p.k_tiles_per_split = 3;  // splits [0,3) [3,6) [6,8)
  ASSERT_EQ(S::items(p), 2 * 3);
  for (int w = 0; w < S::items(p); ++w) {
    auto const t0 = S::work(p, w, 0), t1 = S::work(p, w, 1);
    EXPECT_EQ(t0.split, t1.split);
    EXPECT_EQ(t0.k_tile_begin, 3 * (w % 3));
  }
}

TEST(TileSchedulerPairs, NameSuffix) {
  using A = GemmConfig<Sm90WgmmaDefaultMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using B = GemmConfig<Sm90WgmmaFastMulticastB<>, PerTensor, LayoutB::kNK, Epilogue<bf16>,
                       FastAccumulation>;
  using N = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  std::string const a = Gemm<A>::name(), b = Gemm<B>::name(), n = Gemm<N>::name();
  EXPECT_EQ(a.substr(a.size() - 4), "_mcA") << a;
  EXPECT_EQ(b.substr(b.size() - 4), "_mcB") << b;
  EXPECT_EQ(n.find("_mc"), std::string::npos) << n;
  EXPECT_NE(b.find("_fastacc_mcB"), std::string::npos) << b;
}

/// Configs that differ only in the accumulation mode have different names (gtest suites and
/// benchmark labels are named after them): one policy, promoted and with FastAccumulation.
TEST(TileSchedulerPairs, NameTellsTheAccumulationApart) {
  using Promoted = GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using Fast =
      GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;
  using Every256 =
      GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, PromoteEvery<256>>;
  std::string const p = Gemm<Promoted>::name(), f = Gemm<Fast>::name();
  EXPECT_NE(p, f);
  EXPECT_EQ(f, p + "_fastacc");
  std::string const e = Gemm<Every256>::name();
  EXPECT_EQ(e.substr(e.size() - 11), "_promote256") << e;
}

}  // namespace
}  // namespace fp8gemm
