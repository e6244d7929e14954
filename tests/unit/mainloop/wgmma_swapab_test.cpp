// SPDX-License-Identifier: MIT
// The swapped-operand decode policies (WgmmaSwapABPolicy, Sm90WgmmaDecode: C^T = B A^T) on the
// host: the transposed accumulator map covers the C tile once and puts wgmma's D[i][j] at
// C[j][i]; the epilogue writes every element of C with its own row / column scales through it
// (no neighbouring-column pairs: registers 2q, 2q + 1 are neighbouring rows); the stage budget,
// the operand types and A's box rows. The GPU tests (WgmmaSwapAB*) run the kernel on the H200.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

template <class Policy, int PromoteK = 128>
using MainloopOf = TmaWgmmaMainloop<Policy, PerTensor, PromoteK>;

// ---- policy shape and budget -------------------------------------------------------------------

static_assert(Sm90WgmmaDecode<8>::kBlockM == 8 && Sm90WgmmaDecode<8>::kBlockN == 64,
              "a C tile is BlockMCols x 64");
static_assert(Sm90WgmmaDecode<8>::Atom::kN == 8 && Sm90WgmmaDecode<16>::Atom::kN == 16 &&
                  Sm90WgmmaDecode<32>::Atom::kN == 32,
              "the wgmma N is the C tile's M");
static_assert(IsWgmmaPolicy<Sm90WgmmaDecode<16>>::value, "GemmConfig must pick the WGMMA kernel");
static_assert(WgmmaSwapsAB<Sm90WgmmaDecode<16>>::value && !WgmmaSwapsAB<Sm90WgmmaSmallM<>>::value,
              "only the swapped policies swap");
// wgmma's A operand is the B tile: its element type is the GEMM's B type, and vice versa
static_assert(std::is_same_v<Sm90WgmmaDecode<8, e4m3fn, e5m2>::Atom::ElementA, e5m2> &&
                  std::is_same_v<Sm90WgmmaDecode<8, e4m3fn, e5m2>::Atom::ElementB, e4m3fn>,
              "swapping the operands swaps the wgmma's types");
static_assert(std::is_same_v<Sm90WgmmaDecode<8, e4m3fn, e5m2>::ElementA, e4m3fn>,
              "the policy's ElementA stays the GEMM's A type");
static_assert(std::is_same_v<MainloopOf<Sm90WgmmaDecode<8>>::Coords,
                             MainloopOf<Sm90WgmmaDecode<8>>::TransposedCoords> &&
                  std::is_same_v<MainloopOf<Sm90WgmmaSmallM<>>::Coords,
                                 MainloopOf<Sm90WgmmaSmallM<>>::StraightCoords>,
              "the swapped policies read the accumulators transposed, the others not");
static_assert(MainloopOf<Sm90WgmmaDecode<8>>::kPipelinedPromotion &&
                  MainloopOf<Sm90WgmmaDecode<32>>::kPipelinedPromotion &&
                  MainloopOf<Sm90WgmmaDecode<128>>::kPipelinedPromotion,
              "tiny accumulators: two partial-sum sets (pipelined promotion)");

/// Bytes the kernel asks for: the ring struct plus the 1024 B it keeps to align it.
template <class Policy>
constexpr int shared_bytes() {
  using K = typename GemmConfig<Policy, PerTensor, LayoutB::kNK, Epilogue<bf16>>::Kernel;
  return K::kSharedBytes;
}

TEST(SwapABPolicy, StagesFillTheSharedMemoryBudget) {
  // (64 + BlockMCols) x 128 B per stage: 9, 10, 12, 16, 24 KiB
  EXPECT_EQ(Sm90WgmmaDecode<8>::kStages, 25);
  EXPECT_EQ(Sm90WgmmaDecode<16>::kStages, 22);
  EXPECT_EQ(Sm90WgmmaDecode<32>::kStages, 18);
  EXPECT_EQ(Sm90WgmmaDecode<64>::kStages, 14);
  EXPECT_EQ(Sm90WgmmaDecode<128>::kStages, 9);
  // (128 + BlockMCols) x 128 B: 29 and 36 KiB, beside 26 and 40 KiB of bf16 staging
  EXPECT_EQ(Sm90WgmmaMidM<104>::kStages, 6);
  EXPECT_EQ(Sm90WgmmaMidM<160>::kStages, 5);
  constexpr int kBudget = arch::Sm90a::kLdsBytes;  // 232,448
  EXPECT_LE(shared_bytes<Sm90WgmmaDecode<8>>(), kBudget);
  EXPECT_LE(shared_bytes<Sm90WgmmaDecode<16>>(), kBudget);
  EXPECT_LE(shared_bytes<Sm90WgmmaDecode<32>>(), kBudget);
  EXPECT_LE(shared_bytes<Sm90WgmmaDecode<128>>(), kBudget);
  EXPECT_LE(shared_bytes<Sm90WgmmaMidM<104>>(), kBudget);  // ring + staging
  EXPECT_GT(shared_bytes<Sm90WgmmaMidM<104>>() + 29 * 1024, kBudget);
  static_assert(std::is_same_v<GemmConfig<Sm90WgmmaMidM<104>, PerTensor, LayoutB::kNK,
                                          Epilogue<bf16>>::CollectiveEpilogue,
                               TmaStoreEpilogue<Sm90WgmmaMidM<104>, PerTensor, Epilogue<bf16>>>,
                "the two-consumer swapped tiles store bf16 through TMA");
  // one stage more would not fit
  EXPECT_GT(shared_bytes<Sm90WgmmaDecode<8>>() + 9 * 1024, kBudget);
  EXPECT_GT(shared_bytes<Sm90WgmmaDecode<16>>() + 10 * 1024, kBudget);
  EXPECT_GT(shared_bytes<Sm90WgmmaDecode<32>>() + 12 * 1024, kBudget);
  // the B bytes in flight per SM against Sm90WgmmaSmallM's 13 x 8 KiB
  EXPECT_GT(Sm90WgmmaDecode<32>::kStages * Sm90WgmmaDecode<32>::kStageBytesB,
            Sm90WgmmaSmallM<>::kStages * Sm90WgmmaSmallM<>::kStageBytesB);
}

TEST(SwapABPolicy, ABoxRowsAndStageBytes) {
  using D8 = MainloopOf<Sm90WgmmaDecode<8>>;
  using D16 = MainloopOf<Sm90WgmmaDecode<16>>;
  using D32 = MainloopOf<Sm90WgmmaDecode<32>>;
  // {M, rows of A per copy}
  EXPECT_EQ(D8::a_box_rows(1), 8);
  EXPECT_EQ(D8::a_box_rows(5), 8);
  EXPECT_EQ(D8::a_box_rows(100), 8);
  EXPECT_EQ(D16::a_box_rows(1), 8);
  EXPECT_EQ(D16::a_box_rows(16), 16);
  EXPECT_EQ(D16::a_box_rows(17), 16);
  EXPECT_EQ(D32::a_box_rows(17), 24);
  EXPECT_EQ(D32::a_box_rows(33), 32);
}

// ---- the transposed accumulator map -------------------------------------------------------------

/// Every (m, n) of the BlockMCols x BlockNRows C tile is held by exactly one (consumer, thread,
/// register), and that register is wgmma's D[n - 64 c][m] of consumer c (row = acc_row, column =
/// acc_col = m; consumer c's rows of N start at 64 c).
template <class P>
void expect_transposed_map_covers_tile() {
  using Coords = typename MainloopOf<P>::Coords;
  using Atom = typename P::Atom;
  static_assert(Coords::kTransposed, "swapped: transposed coordinates");
  std::vector<int> hits(P::kBlockM * P::kBlockN, 0);
  for (int consumer = 0; consumer < P::kConsumers; ++consumer) {
    for (int t = 0; t < 128; ++t) {
      Coords const c{consumer, t};
      EXPECT_EQ(c.first_row(), 64 * consumer);
      for (int r = 0; r < Atom::kAccumulators; ++r) {
        int const m = c.row(0, r), n = c.col(0, r);
        ASSERT_GE(m, 0);
        ASSERT_LT(m, P::kBlockM) << "thread " << t << " register " << r;
        ASSERT_GE(n, 0);
        ASSERT_LT(n, P::kBlockN) << "thread " << t << " register " << r;
        EXPECT_EQ(m, Atom::acc_col(t, r));
        EXPECT_EQ(n, 64 * consumer + Atom::acc_row(t, r));
        ++hits[m * P::kBlockN + n];
      }
    }
  }
  for (int e = 0; e < P::kBlockM * P::kBlockN; ++e)
    ASSERT_EQ(hits[e], 1) << "BlockMCols " << P::kBlockM << ": (m, n) = (" << e / P::kBlockN << ", "
                          << e % P::kBlockN << ")";
}

TEST(SwapABPolicy, TransposedMapCoversTheTileOnce) {
  expect_transposed_map_covers_tile<Sm90WgmmaDecode<8>>();
  expect_transposed_map_covers_tile<Sm90WgmmaDecode<16>>();
  expect_transposed_map_covers_tile<Sm90WgmmaDecode<32>>();
  expect_transposed_map_covers_tile<Sm90WgmmaDecode<128>>();
  expect_transposed_map_covers_tile<Sm90WgmmaMidM<104>>();  // two consumers
  expect_transposed_map_covers_tile<Sm90WgmmaMidM<160>>();
}

// Literal facts: thread 0 register 1 is D[0][1] = C[1][0] (next row of C, not next column);
// thread 5 register 2 is D[8 + 1][2] = C[2][9]; thread 127 register 3 of the N = 8 atom is
// D[63][7] = C[7][63].
TEST(SwapABPolicy, TransposedMapKnownEntries) {
  using C8 = MainloopOf<Sm90WgmmaDecode<8>>::Coords;
  C8 const t0{0, 0}, t5{0, 5}, t127{0, 127};
  EXPECT_EQ(t0.row(0, 1), 1);
  EXPECT_EQ(t0.col(0, 1), 0);
  EXPECT_EQ(t5.row(0, 2), 2);
  EXPECT_EQ(t5.col(0, 2), 9);
  EXPECT_EQ(t127.row(0, 3), 7);
  EXPECT_EQ(t127.col(0, 3), 63);
}

// ---- end to end through the epilogue ------------------------------------------------------------

/// Host model of the consumer: D[i][j] = sum_k Bt[i][k] · At[j][k] with wgmma's A = the B tile
/// (64 rows of N) and its B = the A tile (BlockMCols rows of M); each thread's registers get
/// D[acc_row][acc_col]; DirectStoreEpilogue::store writes them through TransposedCoords. C must
/// equal (A·B^T) · s_a[m] · s_b[n] + bias[n] inside (M, N), and stay poisoned outside, with C's
/// pairs aligned (pair_stores on: a pairing bug would write C[m][n + 1] from register r + 1).
template <class P>
void expect_epilogue_writes_c(int m_total, int n_total, int m0, int n0) {
  constexpr int BlockMCols = P::kBlockM;
  using Config = GemmConfig<P, PerChannel, LayoutB::kNK, Epilogue<float>>;
  using Mainloop = typename Config::Mainloop;
  using Store = typename Config::CollectiveEpilogue;
  using Atom = typename P::Atom;
  constexpr int kK = 32;  // one k-step is enough for the map
  std::mt19937 rng(static_cast<unsigned>(BlockMCols * 1000 + m_total));
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<float> a(static_cast<std::size_t>(m_total) * kK),
      b(static_cast<std::size_t>(n_total) * kK);
  for (auto& x : a) x = static_cast<float>(small(rng));
  for (auto& x : b) x = static_cast<float>(small(rng));
  std::vector<float> sa(static_cast<std::size_t>(m_total)), sb(static_cast<std::size_t>(n_total)),
      bias(static_cast<std::size_t>(n_total));
  for (int m = 0; m < m_total; ++m)
    sa[static_cast<std::size_t>(m)] = 1.0f + 0.25f * static_cast<float>(m % 7);
  for (int n = 0; n < n_total; ++n) {
    sb[static_cast<std::size_t>(n)] = 0.5f + 0.125f * static_cast<float>(n % 5);
    bias[static_cast<std::size_t>(n)] = static_cast<float>(n % 3) - 1.0f;
  }
  int const ldc = (n_total + 1) / 2 * 2 + 2;  // even, > N: pairs aligned, a gap after each row
  constexpr float kPoison = -12345.0f;
  std::vector<float> c(static_cast<std::size_t>(m_total) * static_cast<std::size_t>(ldc), kPoison);

  typename Store::Arguments args;
  args.params.c = c.data();
  args.params.ldc = ldc;
  args.params.bias = bias.data();
  args.scale_a = {sa.data(), 1, m_total};
  args.scale_b = {sb.data(), 1, n_total};
  args = Store::to_params(args);
  OutputBounds const bounds{m_total, n_total};
  ASSERT_TRUE(args.pair_stores) << "the test must run with pairs allowed";

  auto at = [&](int m, int k) {  // rows past M: TMA's zero fill
    return m < m_total ? a[static_cast<std::size_t>(m) * kK + static_cast<std::size_t>(k)] : 0.0f;
  };
  auto bt = [&](int n, int k) {
    return n < n_total ? b[static_cast<std::size_t>(n) * kK + static_cast<std::size_t>(k)] : 0.0f;
  };
  for (int consumer = 0; consumer < P::kConsumers; ++consumer) {
    for (int t = 0; t < 128; ++t) {
      typename Mainloop::Accumulators acc;
      for (int r = 0; r < Atom::kAccumulators; ++r) {
        int const i = Atom::acc_row(t, r), j = Atom::acc_col(t, r);  // wgmma D[i][j]
        float d = 0.0f;
        for (int k = 0; k < kK; ++k) d += bt(n0 + 64 * consumer + i, k) * at(m0 + j, k);
        acc.v[0][0][r] = d;
      }
      Store::store(args, bounds, m0, n0, acc, typename Mainloop::Coords{consumer, t});
    }
  }
  for (int m = 0; m < m_total; ++m) {
    for (int n = 0; n < n_total; ++n) {
      float const got = c[static_cast<std::size_t>(m) * ldc + static_cast<std::size_t>(n)];
      bool const inside = m >= m0 && m < m0 + P::kBlockM && n >= n0 && n < n0 + P::kBlockN;
      if (!inside) {
        ASSERT_EQ(got, kPoison) << "(" << m << ", " << n << ") outside the tile was written";
        continue;
      }
      double dot = 0.0;
      for (int k = 0; k < kK; ++k) dot += double(at(m, k)) * double(bt(n, k));
      float const want = scale_twice(static_cast<float>(dot), sa[static_cast<std::size_t>(m)],
                                     sb[static_cast<std::size_t>(n)]) +
                         bias[static_cast<std::size_t>(n)];
      ASSERT_EQ(got, want) << "BlockMCols " << BlockMCols << " C[" << m << "][" << n << "]";
    }
  }
}

TEST(SwapABPolicy, EpilogueWritesCThroughTheTransposedMap) {
  expect_epilogue_writes_c<Sm90WgmmaDecode<8>>(8, 64, 0, 0);      // interior tile, full
  expect_epilogue_writes_c<Sm90WgmmaDecode<8>>(13, 200, 8, 128);  // second m-tile, M and N tails
  expect_epilogue_writes_c<Sm90WgmmaDecode<16>>(5, 64, 0, 0);     // M = 5 < 16
  expect_epilogue_writes_c<Sm90WgmmaDecode<16>>(40, 129, 16, 64);
  expect_epilogue_writes_c<Sm90WgmmaDecode<32>>(33, 70, 32, 64);  // one row of the second m-tile
  expect_epilogue_writes_c<Sm90WgmmaDecode<32>>(32, 128, 0, 64);
  // two consumers: the second one's 64 rows of N are [n0 + 64, n0 + 128)
  expect_epilogue_writes_c<Sm90WgmmaMidM<104>>(200, 256, 104, 128);  // second tile row, both
  expect_epilogue_writes_c<Sm90WgmmaMidM<104>>(150, 100, 0, 0);      // consumer 1: rows 64..99 only
  expect_epilogue_writes_c<Sm90WgmmaMidM<160>>(129, 40, 0, 0);       // consumer 1: all past N
}

}  // namespace
}  // namespace fp8gemm
