// SPDX-License-Identifier: MIT
// can_implement on the host build (CDNA policies): every refusal names its check and its code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/can_implement_cases.hpp"

namespace fp8gemm::test {
namespace {

TEST(GemmCanImplement, ExplainsEveryRefusalGfx950) {
  check_every_refusal<
      GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<
      GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>>();
}

// gfx950 mk_nk_mn's direct-to-LDS loads address a block tile's rows with 32-bit buffer offsets.
TEST(GemmCanImplement, BufferLoadOffsetsOfABlockTileFit31Bits) {
  using Config = GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  static_assert(
      std::is_same_v<Config::Mainloop,
                     BufferLdsPingPongMainloop<Cdna4Default<>, PerTensor, LayoutB::kNK, 0>>);
  auto args = valid_arguments_64<Config>();
  args.lda = std::int64_t{1} << 23;  // 256 rows x 2^23 = 2^31: one past the largest offset
  expect_refused<Config>(args, StatusCode::kErrorLeadingDimension,
                         "lda * 256 must be below 2^31 (32-bit buffer offsets of one block tile)");
  args = valid_arguments_64<Config>();
  args.ldb = std::int64_t{1} << 23;
  expect_refused<Config>(args, StatusCode::kErrorLeadingDimension, "ldb * 256 must be below 2^31");
  args.ldb = (std::int64_t{1} << 23) - 16;  // the largest multiple of 16 that fits
  EXPECT_TRUE(Gemm<Config>::can_implement(args).ok())
      << Gemm<Config>::can_implement(args).to_string();
}

// gfx950 mk_nk_mn with MX-32: each operand's E8M0 bytes are one buffer range (32-bit offsets).
// M = 2^20 rows of ceil(K / 32) = 2^11 bytes is 2^31 bytes: one past the largest offset. Never
// dereferenced: can_implement reads only the shapes and the pointers' alignment.
TEST(GemmCanImplement, Mx32ScaleOffsetsFit31Bits) {
  using Config = GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>;
  static_assert(std::is_same_v<Config::Mainloop,
                               BufferLdsPingPongMainloop<Cdna4KBlocked<>, Mx32, LayoutB::kNK, 0>>);
  using G = Gemm<Config>;
  auto args = valid_arguments_64<Config>();
  args.problem.m = 1 << 20, args.problem.k = 1 << 16, args.lda = args.problem.k,
  args.ldb = args.problem.k;
  args.scale_a_count = G::scale_shape_a(args.problem.m, args.problem.k).size();
  args.scale_b_count = G::scale_shape_b(args.problem.n, args.problem.k).size();
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize,
                         "MX-32 scales: this kernel reads each E8M0 array with 32-bit offsets, and "
                         "A's has 2147483648, B's 131072 bytes");
  args.problem.m = (1 << 20) - 1;  // 2^31 - 2^11 bytes: fits
  args.scale_a_count = G::scale_shape_a(args.problem.m, args.problem.k).size();
  EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
}

TEST(GemmCanImplement, ExplainsEveryRefusalGfx942) {
  check_every_refusal<
      GemmConfig<Cdna3Default<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, GeluErf>>>();
}

// The Hopper policies' host-side checks (the GPU API test runs the same cases on the H200).
TEST(GemmCanImplement, ExplainsEveryRefusalSm90) {
  check_every_refusal<
      GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<
      GemmConfig<Sm90SmallM<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>>();
}

// Gemm::scale_shape_a / scale_shape_b state the scale arrays each granularity expects, and Scale
// is the element they hold (e8m0 for Mx32); can_implement takes exactly their sizes.
TEST(GemmScaleShape, StatesTheShapeEachGranularityExpects) {
  using PerTensorGemm =
      Gemm<GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  using PerChannelGemm =
      Gemm<GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  using BlockwiseGemm = Gemm<
      GemmConfig<Cdna4KBlocked<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, Identity>>>;
  using Mx32Gemm = Gemm<GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  static_assert(std::is_same_v<PerChannelGemm::Scale, float> &&
                std::is_same_v<BlockwiseGemm::Scale, float>);
  static_assert(std::is_same_v<Mx32Gemm::Scale, e8m0>);
  auto shape = [](ScaleShape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); };
  EXPECT_EQ(shape(PerTensorGemm::scale_shape_a(300, 1000)), "1x1");
  EXPECT_EQ(shape(PerTensorGemm::scale_shape_b(200, 1000)), "1x1");
  EXPECT_EQ(shape(PerChannelGemm::scale_shape_a(300, 1000)), "300x1");
  EXPECT_EQ(shape(PerChannelGemm::scale_shape_b(200, 1000)), "200x1");
  EXPECT_EQ(shape(BlockwiseGemm::scale_shape_a(300, 1000)), "300x8");  // ceil(1000 / 128) = 8
  EXPECT_EQ(shape(BlockwiseGemm::scale_shape_b(200, 1000)), "2x8");    // ceil(200 / 128) = 2
  EXPECT_EQ(shape(Mx32Gemm::scale_shape_a(300, 1000)), "300x32");      // ceil(1000 / 32) = 32
  EXPECT_EQ(shape(Mx32Gemm::scale_shape_b(200, 1000)), "200x32");
  auto args = valid_arguments_64<
      GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>>();
  EXPECT_EQ(args.scale_a_count, 64 * 2);
  EXPECT_TRUE(Mx32Gemm::can_implement(args).ok()) << Mx32Gemm::can_implement(args).to_string();
}

// The grouped tile order is a bijection of [0, tiles_m * tiles_n) onto the tile grid for any
// band_m >= 1, including groups taller than the matrix (INT32_MAX: "no grouping"), whose
// band_m * tiles_n would overflow int without the clamp.
TEST(GroupedTileOrder, EveryTileExactlyOnceForAnyGroupM) {
  for (int tiles_m : {1, 3, 8, 13})
    for (int tiles_n : {1, 5, 16})
      for (int band_m : {1, 2, 4, 8, 13, 100, INT32_MAX}) {
        std::vector<int> seen(static_cast<std::size_t>(tiles_m) * tiles_n, 0);
        for (int linear = 0; linear < tiles_m * tiles_n; ++linear) {
          TileCoord const t = banded_tile(linear, tiles_m, tiles_n, band_m);
          ASSERT_TRUE(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n)
              << tiles_m << "x" << tiles_n << " band_m " << band_m << " linear " << linear;
          ++seen[static_cast<std::size_t>(t.m) * tiles_n + t.n];
        }
        for (int v : seen) ASSERT_EQ(v, 1) << tiles_m << "x" << tiles_n << " band_m " << band_m;
      }
  // Consecutive workgroups walk down one tile column of the group first.
  EXPECT_EQ(banded_tile(1, 8, 8, 4).m, 1);
  EXPECT_EQ(banded_tile(1, 8, 8, 4).n, 0);
  EXPECT_EQ(banded_tile(4, 8, 8, 4).n, 1);
}

// The XCD renumbering is a bijection of [0, blocks) for any block count, and die x gets a
// contiguous run: workgroups x, x + 8, ... are numbered consecutively.
TEST(XcdTileOrder, BijectionAndContiguousPerDie) {
  for (int blocks : {1, 7, 8, 9, 64, 100, 1024, 1031})
    for (int xcds : {1, 8}) {
      std::vector<int> seen(static_cast<std::size_t>(blocks), 0);
      for (int b = 0; b < blocks; ++b) {
        int const l = xcd_contiguous(b, blocks, xcds);
        ASSERT_TRUE(l >= 0 && l < blocks) << blocks << " " << xcds << " " << b;
        ++seen[static_cast<std::size_t>(l)];
        if (b + xcds < blocks) {
          ASSERT_EQ(xcd_contiguous(b + xcds, blocks, xcds), l + 1);
        }
      }
      for (int v : seen) ASSERT_EQ(v, 1) << blocks << " blocks, " << xcds << " XCDs";
    }
  EXPECT_EQ(xcd_contiguous(5, 10, 1), 5);
  EXPECT_EQ(xcd_contiguous(8, 1024, 8), 1);    // die 0's second workgroup
  EXPECT_EQ(xcd_contiguous(1, 1024, 8), 128);  // die 1 starts at 1024 / 8
}

// The L2 model behind the XCD-aware order (MI355X: 8 dies x 32 CUs, one 256x256 workgroup per CU,
// dispatched round-robin): the first 256 workgroups of an 8192^3 GEMM are resident together, 32
// per die; per 128-deep K step a die fetches one 256 x 128 A tile per distinct tile row and one B
// tile per distinct tile column among its 32: 32 KiB each. Grouped order alone (band_m 8): die x
// gets tile row x of 32 columns = 33 tiles = 1056 KiB; with the renumbering, 8 rows x 4 columns =
// 12 tiles = 384 KiB.
TEST(XcdTileOrder, FetchPerDieAt8192) {
  constexpr int kTiles = 32, kXcds = 8, kResident = 256;
  auto fetch_kib = [&](bool xcd_aware) {
    int worst = 0;
    for (int die = 0; die < kXcds; ++die) {
      std::vector<bool> rows(kTiles), cols(kTiles);
      int distinct = 0;
      for (int b = die; b < kResident; b += kXcds) {
        int const linear = xcd_aware ? xcd_contiguous(b, kTiles * kTiles, kXcds) : b;
        TileCoord const t = banded_tile(linear, kTiles, kTiles, 8);
        if (!rows[t.m]) rows[t.m] = true, ++distinct;
        if (!cols[t.n]) cols[t.n] = true, ++distinct;
      }
      worst = std::max(worst, distinct * 32);
    }
    return worst;
  };
  EXPECT_EQ(fetch_kib(false), 1056);
  EXPECT_EQ(fetch_kib(true), 384);
  static_assert(RasterTileScheduler<Cdna4Default<>>::Arch::kXcds == kXcds);
}

// The persistent scheduler (Hopper TMA + WGMMA): CTA b of `grid` takes work items b, b + grid, ...;
// item w is tile w / split_k in grouped order and K split w % split_k. Together they cover every
// (tile, K tile) exactly once, each CTA's share differs by at most one item, and initialize()
// sizes the grid to the items when they are fewer than the SMs (here: a host build, one "SM").
TEST(PersistentTileOrder, EveryTileAndKTileOnceBalancedGrouped) {
  using S = PersistentTileScheduler<Sm90WgmmaDefault<>>;
  for (int tiles_m : {1, 3, 32})
    for (int tiles_n : {1, 5, 64})
      for (int grid : {1, 7, 132})
        for (auto [k_tiles, split_k] : {std::pair{1, 1}, {64, 1}, {5, 4}, {7, 3}, {64, 2}}) {
          S::Params p;
          p.tiles_m = tiles_m, p.tiles_n = tiles_n, p.band_m = 8, p.grid = grid;
          p.split_k = split_k, p.k_tiles = k_tiles;
          p.k_tiles_per_split = (k_tiles + split_k - 1) / split_k;
          std::vector<int> seen(static_cast<std::size_t>(tiles_m) * tiles_n * k_tiles, 0);
          int most = 0, fewest = 1 << 30;
          for (int b = 0; b < grid; ++b) {
            int mine = 0;
            for (int w = b; w < S::items(p); w += grid, ++mine) {
              auto const t = S::work(p, w);
              ASSERT_EQ(t.m, banded_tile(w / split_k, tiles_m, tiles_n, 8).m);
              ASSERT_EQ(t.n, banded_tile(w / split_k, tiles_m, tiles_n, 8).n);
              ASSERT_EQ(t.split, w % split_k);
              ASSERT_LE(t.k_tile_end - t.k_tile_begin, p.k_tiles_per_split);
              // an empty split is [k_tiles, k_tiles): a reversed range would move a ping-pong
              // consumer's ring position backwards
              ASSERT_LE(t.k_tile_begin, t.k_tile_end);
              ASSERT_LE(t.k_tile_end, k_tiles);
              for (int kt = t.k_tile_begin; kt < t.k_tile_end; ++kt)
                ++seen[(static_cast<std::size_t>(t.m) * tiles_n + t.n) * k_tiles + kt];
            }
            most = std::max(most, mine), fewest = std::min(fewest, mine);
          }
          for (int v : seen)
            ASSERT_EQ(v, 1) << tiles_m << "x" << tiles_n << " grid " << grid << " k_tiles "
                            << k_tiles << " split_k " << split_k;
          EXPECT_LE(most - fewest, 1);
        }
  ProblemShape const problem{4096, 4096, 4096};
  S::Arguments args{1, 8};
  S::Params p;
  ASSERT_TRUE(S::initialize(problem, args, p).ok());
  EXPECT_EQ(p.tiles_m, 32);  // 4096 / 128
  EXPECT_EQ(p.tiles_n, 32);  // 4096 / 128
  EXPECT_EQ(S::grid_x(p), 1);
  args.split_k = 3;
  ASSERT_TRUE(S::initialize(problem, args, p).ok());
  EXPECT_EQ(p.k_tiles, 32);
  EXPECT_EQ(p.k_tiles_per_split, 11);  // 11 + 11 + 10
  EXPECT_EQ(S::items(p), 32 * 32 * 3);
  args.split_k = 33;  // more splits than K tiles
  EXPECT_NE(
      S::can_implement(problem, args).message().find("split_k must be in [1, ceil(K / BlockK)"),
      std::string::npos);
}

// band_m = 0 (Gemm's default): the persistent scheduler groups the whole g tile rows that
// minimize a wave's reads per k-block, g BlockM + (W / g) BlockN for W tiles in flight. Pinned for
// the H200's 132 SMs (sqrt(132 x 256 / 128) = 16.2, sqrt(132) = 11.5, sqrt(128 x 64 / 128) = 8),
// brute-forced over wave sizes and tile shapes, and passed through initialize(); an explicit
// band_m is kept.
template <class Policy>
void expect_least_wave_bytes() {
  using S = PersistentTileScheduler<Policy>;
  for (int w = 1; w <= 400; ++w) {
    int const g = S::auto_band_m(w);
    auto bytes = [&](int rows) {  // per k-block and 128 B of K, times rows (exact in double)
      return double(rows) * rows * Policy::kBlockM + double(w) * Policy::kBlockN;
    };
    for (int other = 1; other <= w + 1; ++other)  // bytes(x) / x compared as x * bytes(g) / g
      ASSERT_LE(bytes(g) * other, bytes(other) * g)
          << Policy::kBlockM << "x" << Policy::kBlockN << " wave " << w << ": " << g << " rows, "
          << other << " read less";
    if (g > 1) {
      ASSERT_LT(bytes(g) * (g - 1), bytes(g - 1) * g) << "a tie takes the smaller";
    }
  }
}

TEST(PersistentTileOrder, AutoBandMIsTheSquarestWave) {
  EXPECT_EQ(PersistentTileScheduler<Sm90WgmmaLarge<>>::auto_band_m(132), 16);
  EXPECT_EQ(PersistentTileScheduler<Sm90WgmmaDefault<>>::auto_band_m(132), 11);
  EXPECT_EQ(PersistentTileScheduler<Sm90WgmmaMediumM<>>::auto_band_m(128), 8);
  EXPECT_EQ(PersistentTileScheduler<Sm90WgmmaDefault<>>::auto_band_m(0), 1);
  expect_least_wave_bytes<Sm90WgmmaLarge<>>();
  expect_least_wave_bytes<Sm90WgmmaDefault<>>();
  expect_least_wave_bytes<Sm90WgmmaMediumM<>>();
  expect_least_wave_bytes<Sm90WgmmaSmallM<>>();
  using Large = PersistentTileScheduler<Sm90WgmmaLarge<>>;
  EXPECT_EQ(Large::band_m_for(0, 132, 1), 16);
  EXPECT_EQ(Large::band_m_for(0, 132, 2), 11);  // 66 tiles in flight: 11 x 12 x 128 >= 66 x 256
  EXPECT_EQ(Large::band_m_for(0, 1, 1), 1);
  EXPECT_EQ(Large::band_m_for(5, 132, 1), 5);
  ProblemShape const problem{8192, 8192, 8192};
  Large::Arguments args{1, 0};
  Large::Params p;
  ASSERT_TRUE(Large::initialize(problem, args, p).ok());
  EXPECT_EQ(p.band_m, Large::band_m_for(0, p.grid, 1));  // a host build: one "SM"
  args.band_m = 5;
  ASSERT_TRUE(Large::initialize(problem, args, p).ok());
  EXPECT_EQ(p.band_m, 5);
  args.band_m = -1;
  EXPECT_NE(Large::can_implement(problem, args).message().find("band_m must be >= 0"),
            std::string::npos);
}

}  // namespace
}  // namespace fp8gemm::test

namespace fp8gemm {
namespace {

// supports<Config>(problem): a dispatcher's filter. A config whose compile-time rules fail is
// refused with the rule's sentence and never instantiated (this file compiles with it in a
// candidate list); a valid one is asked can_implement on dense operands of the problem's shape.
TEST(Supports, FiltersCandidatesWithoutCompilingTheInvalidOnes) {
  using Valid = GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using BadWaves =
      GemmConfig<TilePolicy<256, 256, 64, 4, 4, arch::Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>>,
                 PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using BadBlock = GemmConfig<Cdna3Default<>, Blockwise<1, 128, 96>, LayoutB::kNK, Epilogue<bf16>>;
  static_assert(config_compiles<Valid>() && !config_compiles<BadWaves>() &&
                !config_compiles<BadBlock>());
  EXPECT_TRUE(supports<Valid>({4096, 4096, 4096}).ok())
      << supports<Valid>({4096, 4096, 4096}).to_string();
  EXPECT_TRUE(supports<Valid>({1, 7168, 256}, 2).ok());  // split-K on dense operands
  Status const waves = supports<BadWaves>({4096, 4096, 4096});
  EXPECT_EQ(waves.code(), StatusCode::kErrorUnsupported);
  EXPECT_EQ(
      waves.message(),
      (config_why_not<TilePolicy<256, 256, 64, 4, 4, arch::Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>>,
                      PerTensor, LayoutB::kNK, AtomDefaultAccumulation>()));
  EXPECT_EQ(supports<BadBlock>({4096, 4096, 4096}).message(),
            std::string(FP8GEMM_RULE_SCALE_BLOCK_K_DIVIDES));
  // shape refusals come from can_implement, with its sentences
  EXPECT_NE(supports<Valid>({0, 64, 64}).message().find("M, N and K must be >= 1"),
            std::string::npos);
  EXPECT_NE(supports<Valid>({64, 64, 100}).message().find("lda must be a multiple of 16"),
            std::string::npos);  // K = 100: dense rows are not 16-byte aligned
  EXPECT_NE(supports<Valid>({64, 64, 256}, 3).message().find("split_k must be in"),
            std::string::npos);  // 2 K tiles of 128
  EXPECT_NE(supports<Valid>({64, 64, 256, 2}).message().find("problem.l must be 1"),
            std::string::npos);
}

}  // namespace
}  // namespace fp8gemm
