// SPDX-License-Identifier: MIT
// The TMA + WGMMA mainloop's K-block scales (TmaWgmmaMainloop::BlockScales), on the host: which
// scale each accumulator register of each consumer thread gets (against an index computed here
// from the accumulator map and the scale layout), and the promotion rule: one FFMA with s_a·s_b
// when every product is a normal float, else fma(partial·s_a, s_b, acc). On the H200 the GEMM
// tests run the folded branch (quantized scales never leave it) and
// WgmmaBlockScalesVote (tests/gpu/gemm_wgmma_gpu_test.cu) both, voted by a whole warp.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/scale_layouts.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

template <class Policy, class G>
struct Fixture {
  using Mainloop = TmaWgmmaMainloop<Policy, G, 128>;
  using Atom = typename Policy::Atom;
  static constexpr int kM = 300, kN = 520, kK = 384;  // ragged: M, N past a tile
  std::vector<float> sa, sb;
  std::vector<float> sa_stored;  // sa as the kernel reads it: row-major, or K-block-major (ld > 0)
  typename Mainloop::Params p;
  /// ld > 0: A's scales K-block-major (Gemm::Arguments::scale_a_ld), NaN between the rows.
  explicit Fixture(std::int64_t ld = 0) {
    ScaleShape const a = scale_shape<G>(Operand::kA, kM, kK),
                     b = scale_shape<G>(Operand::kB, kN, kK);
    sa.resize(static_cast<std::size_t>(a.size()));
    sb.resize(static_cast<std::size_t>(b.size()));
    for (std::size_t i = 0; i < sa.size(); ++i) sa[i] = 1.0f + static_cast<float>(i);
    for (std::size_t i = 0; i < sb.size(); ++i) sb[i] = 0.5f + static_cast<float>(i) / 1024.0f;
    sa_stored = ld > 0 ? test::k_block_major(sa, a.rows, a.cols, ld) : sa;
    p.scale_a = {sa_stored.data(), a.cols, kM, ld};
    p.scale_b = {sb.data(), b.cols, kN};
    p.problem = {kM, kN, kK};
  }
  /// The scale of output row m / column n in k-block kb, rows and columns past M / N clamped.
  float want_a(int m, int kb) const {
    m = m < kM ? m : kM - 1;
    return sa[static_cast<std::size_t>((m / G::kABlockM) * p.scale_a.cols + kb)];
  }
  float want_b(int n, int kb) const {
    n = n < kN ? n : kN - 1;
    return sb[static_cast<std::size_t>((n / G::kBBlockN) * p.scale_b.cols + kb)];
  }
};

/// Every register of every consumer thread, for interior and edge tiles: the A scale of its row,
/// the B scale of its column.
template <class Policy, class G>
void check_indexing(std::int64_t ld = 0) {
  using F = Fixture<Policy, G>;
  using Atom = typename F::Atom;
  F f(ld);
  for (int m0 : {0, Policy::kBlockM})  // second tile row: rows past M = 300
    for (int n0 : {0, 4 * Policy::kBlockN})
      for (int kb = 0; kb < F::kK / 128; ++kb)
        for (int consumer = 0; consumer < Policy::kConsumers; ++consumer)
          for (int t = 0; t < 128; ++t) {
            typename F::Mainloop::BlockScales s;
            s.load(f.p, m0 + consumer * Policy::kConsumerRows, n0, kb, t);
            for (int i = 0; i < Policy::kAtomsM; ++i)
              for (int r = 0; r < Atom::kAccumulators; ++r) {
                int const m = m0 + consumer * Policy::kConsumerRows + i * 64 + Atom::acc_row(t, r);
                int const n = n0 + Atom::acc_col(t, r);
                ASSERT_EQ(s.sa[i][(r / 2) % 2], f.want_a(m, kb))
                    << "m0 " << m0 << " consumer " << consumer << " t " << t << " i " << i << " r "
                    << r;
                ASSERT_EQ(s.sb[F::Mainloop::BlockScales::group(r)], f.want_b(n, kb))
                    << "n0 " << n0 << " t " << t << " r " << r;
              }
          }
}

TEST(WgmmaBlockScales, IndexingKBlockMajorA) {
  // torch's column-major (M, K/128) A scales, with a leading dimension past M
  check_indexing<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>>(300 + 5);
  check_indexing<Sm90WgmmaDefault<>, Blockwise<128, 128, 128>>(3 + 1);  // 3 row blocks of A
}

TEST(WgmmaBlockScales, IndexingPerRowTimes128Columns) {
  check_indexing<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>>();
  check_indexing<WgmmaTilePolicy<256, 128, 2, 4>, Blockwise<1, 128, 128>>();  // 2 row blocks
}
TEST(WgmmaBlockScales, IndexingBlocksOf128RowsAnd64Columns) {
  check_indexing<Sm90WgmmaDefault<>, Blockwise<128, 64, 128>>();  // two B groups per tile
  check_indexing<WgmmaTilePolicy<128, 64, 2, 5>, Blockwise<1, 256, 128>>();  // bn > BlockN
}

/// The swapped policies (WgmmaSwappedBlockScales): every register of every thread of the one
/// consumer gets the A scale of its C row (m0 + acc_col) and the B scale of its C column
/// (n0 + acc_row), through the transposed map, for interior and edge tiles (columns past M, the
/// last 64-row tile of N), row-major and K-block-major A scales, A blocks of 1 and 128 rows.
template <class Policy, class G>
void check_swapped_indexing(std::int64_t ld = 0) {
  using F = Fixture<Policy, G>;
  using Atom = typename F::Atom;
  using Scales = typename F::Mainloop::BlockScales;
  static_assert(F::Mainloop::kSwapAB);
  static_assert(std::is_same_v<Scales, WgmmaSwappedBlockScales<Policy, G, G::kBBlockN>>);
  F f(ld);
  int const last_m0 = (F::kM - 1) / Policy::kBlockM * Policy::kBlockM;
  int const last_n0 = (F::kN - 1) / Policy::kBlockN * Policy::kBlockN;  // 512: 8 rows of N left
  for (int m0 : {0, Policy::kBlockM, last_m0})
    for (int n0 : {0, 64, last_n0})
      for (int kb = 0; kb < F::kK / 128; ++kb)
        for (int t = 0; t < 128; ++t) {
          Scales s;
          s.load(f.p, m0, n0, kb, t);
          for (int r = 0; r < Atom::kAccumulators; ++r) {
            int const m = m0 + Atom::acc_col(t, r), n = n0 + Atom::acc_row(t, r);
            ASSERT_EQ(s.sa[r / 4][r % 2], f.want_a(m, kb))
                << "m0 " << m0 << " n0 " << n0 << " kb " << kb << " t " << t << " r " << r;
            ASSERT_EQ(s.sb, f.want_b(n, kb)) << "n0 " << n0 << " t " << t << " r " << r;
          }
        }
}

TEST(WgmmaBlockScales, SwappedIndexing) {
  check_swapped_indexing<Sm90WgmmaDecode<8>, Blockwise<1, 128, 128>>();
  check_swapped_indexing<Sm90WgmmaDecode<32>, Blockwise<1, 128, 128>>(300 + 5);
  check_swapped_indexing<Sm90WgmmaDecode<64>, Blockwise<1, 64, 128>>(300);
  check_swapped_indexing<Sm90WgmmaDecode<16>, Blockwise<128, 128, 128>>();
  check_swapped_indexing<Sm90WgmmaDecode<64>, Blockwise<128, 256, 128>>(3 + 1);
}

/// The swapped promotion: register r of a chunk takes the product of its column's A scale
/// (r / 4, r % 2) and the tile's B scale, folded when the chunk's products are normal, in two
/// steps when one is not (an underflowing product in column group 1).
TEST(WgmmaBlockScales, SwappedPromotionFoldsPerColumn) {
  using M = TmaWgmmaMainloop<Sm90WgmmaDecode<32>, Blockwise<1, 128, 128>, 128>;
  static_assert(M::kSwapAB && M::kPipelinedPromotion && M::kPromoteChunks == 1);
  constexpr int kRegs = M::Atom::kAccumulators;  // 16: column groups 0 .. 3
  M::BlockScales s;
  for (int j = 0; j < 4; ++j)
    for (int e = 0; e < 2; ++e) s.sa[j][e] = 0.25f + static_cast<float>(2 * j + e) / 3.0f;
  s.sb = 0.7f;
  float partial[kRegs], acc[kRegs], start[kRegs];
  for (int r = 0; r < kRegs; ++r) {
    partial[r] = 1.0f + static_cast<float>(r) / 7.0f;
    start[r] = acc[r] = 3.0f - static_cast<float>(r) / 13.0f;
  }
  s.promote(acc, partial, 0);
  for (int r = 0; r < kRegs; ++r)
    ASSERT_EQ(acc[r], std::fma(partial[r], s.sa[r / 4][r % 2] * s.sb, start[r])) << r;
  s.sa[1][0] = std::ldexp(1.0f, -100), s.sb = std::ldexp(1.0f, -60);
  ASSERT_EQ(s.sa[1][0] * s.sb, 0.0f);  // the product alone underflows
  for (int r = 0; r < kRegs; ++r) acc[r] = 0.0f, partial[r] = std::ldexp(1.0f, 100);
  s.promote(acc, partial, 0);
  for (int r = 0; r < kRegs; ++r)  // two steps: partial · s_a first, representable
    ASSERT_EQ(acc[r], (partial[r] * s.sa[r / 4][r % 2]) * s.sb) << r;
  ASSERT_EQ(acc[4], std::ldexp(1.0f, -60));  // column group 1, e = 0: folded it would be 0
}

// Blockwise with swapped operands: up to 64 columns of A (decode 128 is refused: its A scales
// spilled), promoted in one chunk (32 accumulators + 2 x 32 partial sums at 64 columns).
static_assert(TmaWgmmaMainloop<Sm90WgmmaDecode<64>, Blockwise<1, 128, 128>, 128>::kPromoteChunks ==
              1);
static_assert(!TmaWgmmaRules<Sm90WgmmaDecode<128>, Blockwise<1, 128, 128>, 128>::kValid);
static_assert(!TmaWgmmaRules<Sm90WgmmaDecode<16>, Blockwise<1, 32, 128>, 128>::kValid);

/// The scale ring gives every consumer thread the scales the global loads give it: for interior
/// and edge tiles (rows past M, a B column group past N), each stage's slots are filled as the
/// producer's copies fill them (a box of the 1-D view from ring_offset_a / _b on, zeros past the
/// array: TMA's fill), and load_ring's values are compared bit for bit with load()'s. Every
/// copy starts on a 16-byte boundary (a multiple of 4 floats: TMA stops the kernel with an
/// illegal instruction otherwise), whatever A's leading dimension.
template <class Policy>
void check_ring(std::int64_t ld) {
  using G = Blockwise<1, 128, 128>;
  using F = Fixture<Policy, G>;
  using Mainloop = typename F::Mainloop;
  using Scales = typename Mainloop::BlockScales;
  static_assert(Mainloop::kScaleRing);
  F f(ld);
  auto box = [](std::vector<float> const& array, int from, int count) {
    std::vector<float> slot(static_cast<std::size_t>(count), 0.0f);
    for (int i = 0; i < count; ++i)
      if (from + i < static_cast<int>(array.size()))
        slot[static_cast<std::size_t>(i)] = array[static_cast<std::size_t>(from + i)];
    return slot;
  };
  int const last_m0 = (F::kM - 1) / Policy::kBlockM * Policy::kBlockM;
  int const last_n0 = (F::kN - 1) / Policy::kBlockN * Policy::kBlockN;
  for (int m0 : {0, last_m0})
    for (int n0 : {0, last_n0})
      for (int kb = 0; kb < F::kK / 128; ++kb) {
        std::vector<float> slot_a(Scales::kRingSlotA, -1.0f);  // past the boxes: never read
        for (int c = 0; c < Scales::kRingCopiesA; ++c) {
          int const from = Scales::ring_offset_a(f.p, m0, kb, c);
          ASSERT_EQ(from % 4, 0) << "m0 " << m0 << " kb " << kb << " copy " << c;
          ASSERT_LT(from, static_cast<int>(f.sa_stored.size())) << "a box wholly past the array";
          std::vector<float> const a = box(f.sa_stored, from, Scales::kRingBoxA);
          std::copy(a.begin(), a.end(), slot_a.begin() + c * Scales::kRingPartA);
        }
        float slot_b[Scales::kBGroups][Scales::kRingSlotB];
        for (int g = 0; g < Scales::kBGroups; ++g) {
          ASSERT_EQ(Scales::ring_offset_b(f.p, n0, g, kb) % 4, 0) << "n0 " << n0 << " kb " << kb;
          std::vector<float> const b =
              box(f.sb, Scales::ring_offset_b(f.p, n0, g, kb), Scales::kRingBoxB);
          for (int i = 0; i < Scales::kRingSlotB; ++i) slot_b[g][i] = i < 4 ? b[i] : -1.0f;
        }
        for (int consumer = 0; consumer < Policy::kConsumers; ++consumer)
          for (int t = 0; t < 128; ++t) {
            // ping-pong: each consumer takes whole tiles
            int const row0 = Policy::kPingPong ? 0 : consumer * Policy::kConsumerRows;
            Scales global, ring;
            global.load(f.p, m0 + row0, n0, kb, t);
            ring.load_ring(slot_a.data(), slot_b, Scales::ring_rows(f.p, m0, m0 + row0, n0, t), kb);
            for (int i = 0; i < Policy::kAtomsM; ++i)
              for (int h = 0; h < 2; ++h)
                ASSERT_EQ(std::memcmp(&ring.sa[i][h], &global.sa[i][h], sizeof(float)), 0)
                    << "m0 " << m0 << " kb " << kb << " consumer " << consumer << " t " << t;
            for (int g = 0; g < Scales::kBGroups; ++g)
              ASSERT_EQ(std::memcmp(&ring.sb[g], &global.sb[g], sizeof(float)), 0)
                  << "n0 " << n0 << " kb " << kb << " g " << g;
          }
      }
}

TEST(WgmmaBlockScales, RingGivesTheGlobalLoadsScales) {
  check_ring<Sm90WgmmaDefault<>>(300);      // ld = M
  check_ring<Sm90WgmmaDefault<>>(300 + 5);  // NaN between the rows, ld not a multiple of 4
  check_ring<Sm90WgmmaLarge<>>(300 + 3);    // two B column groups, the second past N at n0 = 512
  // two row blocks per consumer, A's scales in two copies of 128 rows (the last tile's second
  // one past M)
  check_ring<WgmmaTilePolicy<256, 128, 2, 4>>(300 + 1);
  check_ring<WgmmaTilePolicy<256, 64, 2, 4>>(300);
}

/// Checked tiles (TmaWgmmaMainloop::products_normal, what the checker warps compute): the AND of
/// its answers over the three warps and 32 lanes is true exactly where every consumer thread's
/// vote would fold in every k-block of the range (promote()'s test on the scales load() gives
/// it). All-normal scales, then one poisoned scale at a time: an A scale of 0, one whose
/// products underflow, one in row M - 1 (which the rows past M read), a NaN B scale of the
/// column group past N, an A scale whose product overflows; for every tile row and column of
/// the ragged fixture and two k-block ranges (a whole K and a split's).
template <class Policy>
void check_checked_tiles(std::int64_t ld) {
  using G = Blockwise<1, 128, 128>;
  using F = Fixture<Policy, G>;
  using Mainloop = typename F::Mainloop;
  using Scales = typename Mainloop::BlockScales;
  static_assert(Mainloop::kCheckedTiles);
  constexpr int kKBlocks = F::kK / 128;
  auto votes_fold = [](F const& f, int m0, int n0, int kb0, int kb1) {
    for (int kb = kb0; kb < kb1; ++kb)
      for (int consumer = 0; consumer < Policy::kConsumers; ++consumer)
        for (int t = 0; t < 128; ++t) {
          Scales s;
          s.load(f.p, m0 + consumer * Policy::kConsumerRows, n0, kb, t);
          for (int i = 0; i < Policy::kAtomsM; ++i)
            for (int h = 0; h < 2; ++h)
              for (int g = 0; g < Scales::kBGroups; ++g)
                if (!Scales::normal(s.sa[i][h] * s.sb[g])) return false;
        }
    return true;
  };
  auto checker = [](F const& f, int m0, int n0, int kb0, int kb1) {
    bool ok = true;
    for (int w = 0; w < Mainloop::kCheckWarps; ++w)
      for (int lane = 0; lane < 32; ++lane)
        ok = ok && Mainloop::products_normal(f.p, m0, n0, kb0, kb1, w, lane);
    return ok;
  };
  // A's scale of (row, kb) and B's of (column, kb), where the kernel reads them
  auto a_at = [ld](F& f, int row, int kb) -> float& {
    std::size_t const i = ld > 0 ? static_cast<std::size_t>(kb * ld + row)
                                 : static_cast<std::size_t>(row * kKBlocks + kb);
    return f.sa_stored[i];
  };
  auto b_at = [](F& f, int col, int kb) -> float& {
    return f.sb[static_cast<std::size_t>((col / 128) * kKBlocks + kb)];
  };
  struct Poison {
    int row, col, kb;  // row >= 0: A's scale; else B's of column col
    float value;
    int m0, n0;  // a tile it must flip
  };
  int const last_m0 = (F::kM - 1) / Policy::kBlockM * Policy::kBlockM;
  int const last_n0 = (F::kN - 1) / Policy::kBlockN * Policy::kBlockN;
  Poison const cases[] = {
      {-1, 0, 0, 1.0f, -1, -1},                                // nothing poisoned
      {10, 0, 1, 0.0f, 0, 0},                                  // a zero A scale
      {20, 0, 2, 1e-38f, 0, last_n0},                          // its products underflow
      {F::kM - 1, 0, 0, 1e-38f, last_m0, 0},                   // row M - 1: also the rows past M
      {-1, F::kN - 1, 1, std::nanf(""), 0, last_n0},           // B's last column group
      {Policy::kBlockM + 3, 0, 0, 3e38f, Policy::kBlockM, 0},  // its product overflows
  };
  for (Poison const& c : cases) {
    F f(ld);
    if (c.m0 >= 0) {
      float& x = c.row >= 0 ? a_at(f, c.row, c.kb) : b_at(f, c.col, c.kb);
      x = c.value;
      if (c.value == 3e38f) b_at(f, 0, c.kb) = 2.0f;  // 6e38: past FLT_MAX
      EXPECT_FALSE(votes_fold(f, c.m0, c.n0, 0, kKBlocks)) << "the poison must flip a vote";
    }
    for (int m0 = 0; m0 <= last_m0; m0 += Policy::kBlockM)
      for (int n0 = 0; n0 <= last_n0; n0 += Policy::kBlockN)
        for (int kb0 : {0, 1})
          ASSERT_EQ(checker(f, m0, n0, kb0, kKBlocks), votes_fold(f, m0, n0, kb0, kKBlocks))
              << "poison row " << c.row << " col " << c.col << " kb " << c.kb << " tile " << m0
              << ", " << n0 << " from k-block " << kb0;
  }
}

TEST(WgmmaBlockScales, CheckedTilesAgreeWithTheVotes) {
  check_checked_tiles<Sm90WgmmaLarge<>>(300 + 3);  // two B column groups
  check_checked_tiles<Sm90WgmmaLarge<>>(0);        // row-major A scales
  check_checked_tiles<Sm90WgmmaDefault<>>(300);
  check_checked_tiles<WgmmaTilePolicy<256, 128, 2, 4>>(300 + 1);  // two row blocks per consumer
}

/// Which mainloops have the scale ring: A scales per row, the cooperative loops (the ping-pong
/// schedule's where it pipelines), clusters too; and
/// which configs keep it (WgmmaEpilogueChoice): all but those whose TMA-store epilogue it would
/// push out of shared memory (Sm90WgmmaDefault with 2-byte C), which keep the TMA stores.
TEST(WgmmaBlockScales, RingWhereAScalesArePerRow) {
  using Bw = Blockwise<1, 128, 128>;
  using DefaultBf16 = GemmConfig<Sm90WgmmaDefault<>, Bw, LayoutB::kNK, Epilogue<bf16>>;
  static_assert(!DefaultBf16::Mainloop::kScaleRing);
  static_assert(std::is_same_v<DefaultBf16::CollectiveEpilogue,
                               TmaStoreEpilogue<Sm90WgmmaDefault<>, Bw, Epilogue<bf16>>>);
  using DefaultF32 = GemmConfig<Sm90WgmmaDefault<>, Bw, LayoutB::kNK, Epilogue<float>>;
  static_assert(DefaultF32::Mainloop::kScaleRing);  // stores from registers anyway
  using DefaultFp8 = GemmConfig<Sm90WgmmaDefault<>, Bw, LayoutB::kNK, Epilogue<e4m3fn>>;
  static_assert(DefaultFp8::Mainloop::kScaleRing);  // 16 KiB of staging: both fit
  static_assert(std::is_same_v<DefaultFp8::CollectiveEpilogue,
                               TmaStoreEpilogue<Sm90WgmmaDefault<>, Bw, Epilogue<e4m3fn>>>);
  using LargeBf16 = GemmConfig<Sm90WgmmaLarge<>, Bw, LayoutB::kNK, Epilogue<bf16>>;
  static_assert(LargeBf16::Mainloop::kScaleRing);
  static_assert(std::is_same_v<LargeBf16::CollectiveEpilogue,
                               TmaStoreEpilogue<Sm90WgmmaLarge<>, Bw, Epilogue<bf16>>>);
  // five stages of 128 x 128 (fp8gemm_bench's wgmma_128x128_s5_blockwise*): both fit
  using Five = WgmmaTilePolicy<128, 128, 2, 5>;
  using FiveBf16 = GemmConfig<Five, Bw, LayoutB::kNK, Epilogue<bf16>>;
  static_assert(FiveBf16::Mainloop::kScaleRing);
  static_assert(
      std::is_same_v<FiveBf16::CollectiveEpilogue, TmaStoreEpilogue<Five, Bw, Epilogue<bf16>>>);
  // 7 stages of 128 x 128 fill the shared memory: no room for the slots
  static_assert(!TmaWgmmaMainloop<WgmmaTilePolicy<128, 128, 2, 7>, Bw, 128>::kScaleRing);
  static_assert(TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, 128>::kScaleRing);
  static_assert(TmaWgmmaMainloop<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, 128>::kScaleRing);
  static_assert(!TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<128, 128, 128>, 128>::kScaleRing);
  static_assert(!TmaWgmmaMainloop<Sm90WgmmaDefault<>, PerTensor, 128>::kScaleRing);
  // two row blocks per consumer: the ring and checked tiles on the loop with one partial set;
  // not the ping-pong schedule's (its consumer's 128 rows are two row blocks too)
  static_assert(TmaWgmmaMainloop<WgmmaTilePolicy<256, 128, 2, 4>, Blockwise<1, 128, 128>,
                                 128>::kCheckedTiles);
  static_assert(
      !TmaWgmmaMainloop<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
                        Blockwise<1, 128, 128>, 128>::kScaleRing);
  // checked tiles in 2-CTA clusters: a stage is freed by the consumer warps of both CTAs (the
  // other CTA's producer writes it too), a flag slot by this CTA's alone (counting both hung
  // the first GPU run: the slot never came free)
  using McA = TmaWgmmaMainloop<WgmmaTilePolicy<256, 128, 2, 4, e4m3fn, e4m3fn,
                                               WgmmaSchedule::kCooperative, WgmmaMulticast::kA>,
                               Blockwise<1, 128, 128>, 128>;
  static_assert(McA::kCheckedTiles && McA::kEmptyArrivals == 16 && McA::kCheckArrivals == 8);
  // the slots cost no shared memory where there is no ring: stages and barriers, 1024-aligned
  using Policy = Sm90WgmmaDefault<>;
  using Plain = TmaWgmmaMainloop<Policy, PerTensor, 128>;
  using Ring = TmaWgmmaMainloop<Policy, Blockwise<1, 128, 128>, 128>;
  constexpr std::size_t kStagesBytes =
      Policy::kStages * (Policy::kStageBytesA + Policy::kStageBytesB + 2 * sizeof(std::uint64_t));
  static_assert(sizeof(Plain::SharedStorage) == (kStagesBytes + 1023) / 1024 * 1024);
  static_assert(sizeof(Ring::SharedStorage) >=
                sizeof(Plain::SharedStorage) + Policy::kStages * (128 + 4 + 32) * sizeof(float));
  SUCCEED();
}

/// The rule: normal products -> acc = fma(partial, s_a·s_b, acc), bit for bit; a product that is
/// not a normal float (here 2^-100 · 2^-60 = 2^-160: zero in FP32) -> fma(partial·s_a, s_b, acc),
/// which keeps the representable result (partial · 2^-160 with partial = 2^100 is 2^-60).
TEST(WgmmaBlockScales, FoldedWhenNormalTwoStepOtherwise) {
  using P = WgmmaTilePolicy<256, 128, 2, 4>;  // two m64 row blocks per consumer: i = 0, 1
  using M = TmaWgmmaMainloop<P, Blockwise<1, 128, 128>, 128>;
  constexpr int kRegs = P::Atom::kAccumulators;
  M::BlockScales s;
  float partial[kRegs], acc[kRegs], start[kRegs];
  for (int r = 0; r < kRegs; ++r) {
    partial[r] = 1.0f + static_cast<float>(r) / 7.0f;
    start[r] = acc[r] = 3.0f - static_cast<float>(r) / 13.0f;
  }
  s.sa[0][0] = 0.1f, s.sa[0][1] = 3.3f, s.sb[0] = 0.7f;
  s.promote(acc, partial, 0);
  for (int r = 0; r < kRegs; ++r)
    ASSERT_EQ(acc[r], std::fma(partial[r], s.sa[0][(r / 2) % 2] * s.sb[0], start[r])) << r;

  s.sa[1][0] = std::ldexp(1.0f, -100), s.sa[1][1] = 1.0f, s.sb[0] = std::ldexp(1.0f, -60);
  ASSERT_EQ(s.sa[1][0] * s.sb[0], 0.0f);  // the product alone underflows
  for (int r = 0; r < kRegs; ++r) acc[r] = 0.0f, partial[r] = std::ldexp(1.0f, 100);
  s.promote(acc, partial, 1);
  for (int r = 0; r < kRegs; ++r) {
    float const want = (r / 2) % 2 == 0 ? std::ldexp(1.0f, -60) : std::ldexp(1.0f, 40);
    ASSERT_EQ(acc[r], want) << r;  // folded, the h = 0 rows would be 0
  }
}

/// The normality test of the products (integer form, bits of |x| minus FLT_MIN's, unsigned) against
/// std::fpclassify: the edges (0, subnormals, FLT_MIN, FLT_MAX, inf, NaN, both signs) and a sweep
/// of bit patterns over every exponent.
TEST(WgmmaBlockScales, NormalIsFpclassifyNormal) {
  using S = TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, 128>::BlockScales;
  float const edges[] = {0.0f,
                         std::numeric_limits<float>::denorm_min(),
                         std::nextafter(FLT_MIN, 0.0f),
                         FLT_MIN,
                         std::nextafter(FLT_MIN, 1.0f),
                         1.0f,
                         std::nextafter(FLT_MAX, 0.0f),
                         FLT_MAX,
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN()};
  for (float const x : edges) {
    for (float const v : {x, -x}) {
      ASSERT_EQ(S::normal(v), std::fpclassify(v) == FP_NORMAL) << v;
    }
  }
  for (std::uint64_t b = 0; b < (1ull << 32); b += 65521) {  // a prime stride: every exponent
    std::uint32_t const bits = static_cast<std::uint32_t>(b);
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    ASSERT_EQ(S::normal(v), std::fpclassify(v) == FP_NORMAL) << std::hex << bits;
  }
}

/// A promotion chunk (registers r0 .. r0 + Regs - 1 of the row block) takes the B scale of its
/// own columns: 128 x 256 in four n64 chunks with B scale blocks of 128 columns, so chunks 0, 1
/// use sb[0] and chunks 2, 3 sb[1].
TEST(WgmmaBlockScales, ChunkTakesTheScalesOfItsColumns) {
  using M = TmaWgmmaMainloop<WgmmaTilePolicy<128, 256, 2, 3>, Blockwise<1, 128, 128>, 128>;
  static_assert(M::kPromoteChunks == 4);
  constexpr int kRegs = M::ChunkAtom::kAccumulators;  // 32
  M::BlockScales s;
  s.sa[0][0] = 0.5f, s.sa[0][1] = 0.25f, s.sb[0] = 3.0f, s.sb[1] = 5.0f;
  for (int q = 0; q < 4; ++q) {
    float acc[M::Atom::kAccumulators] = {}, partial[kRegs];
    for (int r = 0; r < kRegs; ++r) partial[r] = 1.0f + static_cast<float>(r);
    s.promote(acc, partial, 0, q * kRegs);
    for (int r = 0; r < M::Atom::kAccumulators; ++r) {
      int const rc = r - q * kRegs;  // the chunk's register, if r is in the chunk
      float const want =
          rc < 0 || rc >= kRegs ? 0.0f : partial[rc] * (s.sa[0][(r / 2) % 2] * s.sb[q < 2 ? 0 : 1]);
      ASSERT_EQ(acc[r], want) << "chunk " << q << " register " << r;
    }
  }
}

// Which promoted WGMMA policies run the pipelined promotion (two partial-sum sets): the default
// (chosen for it on the H200) and the decode policy; not two row blocks per consumer (256 x 128,
// 256 x 64 and the ping-pong 128 x 128 promote with one set of a whole row block).
static_assert(TmaWgmmaMainloop<Sm90WgmmaDefault<>, PerTensor, 128>::kPipelinedPromotion);
static_assert(
    TmaWgmmaMainloop<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, 128>::kPipelinedPromotion);
static_assert(
    !TmaWgmmaMainloop<WgmmaTilePolicy<256, 128, 2, 4>, PerTensor, 128>::kPipelinedPromotion);
static_assert(
    !TmaWgmmaMainloop<WgmmaTilePolicy<256, 64, 2, 4>, PerTensor, 128>::kPipelinedPromotion);
static_assert(!TmaWgmmaMainloop<Sm90WgmmaLarge<>, PerTensor, 0>::kPipelinedPromotion);
// Wider tiles promote in chunks of N: the fewest chunks whose two partial-sum sets fit next to the
// accumulators in 192 registers (64 + 2 x 64; 72 + 2 x 36; 96 + 2 x 48; 128 + 2 x 32).
template <int BlockN>
using PromotedMainloop = TmaWgmmaMainloop<WgmmaTilePolicy<128, BlockN, 2, 3>, PerTensor, 128>;
static_assert(PromotedMainloop<128>::kPromoteChunks == 1);
static_assert(PromotedMainloop<144>::kPromoteChunks == 2 &&
              PromotedMainloop<144>::ChunkAtom::kN == 72);
static_assert(PromotedMainloop<192>::kPromoteChunks == 2 &&
              PromotedMainloop<192>::ChunkAtom::kN == 96);
static_assert(PromotedMainloop<256>::kPipelinedPromotion &&
              PromotedMainloop<256>::kPromoteChunks == 4 &&
              PromotedMainloop<256>::ChunkAtom::kN == 64 &&
              PromotedMainloop<256>::kAccumulatorRegisters == 192);

/// The pipelined promotion's walk (TmaWgmmaMainloop::walk_items), as the kernels instantiate
/// it: over k-blocks [kb_begin, kb_end) it issues every item (kb, e), e = 0 .. E-1, once and in
/// order, into set j % 2 for the j-th item, with the scale half (kb - kb_begin) % 2; it retires
/// the items in the same order, each with the set and half it was issued with, item j right
/// after item j + 1 is issued (one later group pending) and the last one after nothing more is
/// (none pending). E = the chunks of the consumer's one row block: 1 (128 x 128), 2 (128 x 192),
/// 4 (128 x 256); 1 to 9 k-blocks, from 0 and from 3.
template <class Mainloop>
void check_walk() {
  constexpr int kE = Mainloop::Policy::kAtomsM * Mainloop::kPromoteChunks;
  static_assert(Mainloop::kPipelinedPromotion);
  struct Event {
    bool issue;
    int set, item, half, kb_or_pending;
  };
  for (int kb_begin : {0, 3})
    for (int n = 1; n <= 9; ++n) {
      std::vector<Event> ev;
      auto issue = [&](auto b, auto e, auto h, int kb) {
        ev.push_back({true, decltype(b)::value, decltype(e)::value, decltype(h)::value, kb});
      };
      auto retire = [&](auto b, auto e, auto h, auto pending) {
        ev.push_back({false, decltype(b)::value, decltype(e)::value, decltype(h)::value,
                      decltype(pending)::value});
      };
      Mainloop::template walk_items<kE>(kb_begin, kb_begin + n, issue, retire);
      int const items = n * kE;
      ASSERT_EQ(static_cast<int>(ev.size()), 2 * items) << "E " << kE << " n " << n;
      // expected order: I0, then (I j, R j-1) for j = 1 .. items-1, then R items-1
      for (int j = 0; j < items; ++j) {
        int const at_issue = j == 0 ? 0 : 2 * j - 1,
                  at_retire = j + 1 < items ? 2 * j + 2 : 2 * j + 1;
        int const kb = kb_begin + j / kE, half = (j / kE) % 2;
        Event const& i = ev[static_cast<std::size_t>(at_issue)];
        Event const& r = ev[static_cast<std::size_t>(at_retire)];
        std::string const where = "E " + std::to_string(kE) + " n " + std::to_string(n) + " from " +
                                  std::to_string(kb_begin) + " item " + std::to_string(j);
        ASSERT_TRUE(i.issue) << where;
        EXPECT_EQ(i.kb_or_pending, kb) << where;
        EXPECT_EQ(i.item, j % kE) << where;
        EXPECT_EQ(i.set, j % 2) << where;
        EXPECT_EQ(i.half, half) << where;
        ASSERT_FALSE(r.issue) << where;
        EXPECT_EQ(r.item, j % kE) << where;
        EXPECT_EQ(r.set, j % 2) << where;
        EXPECT_EQ(r.half, half) << where;
        EXPECT_EQ(r.kb_or_pending, j + 1 < items ? 1 : 0) << where;
      }
    }
}

TEST(WgmmaMainloop, PipelinedWalkIssuesAndRetiresEveryItemInOrder) {
  using Bw = Blockwise<1, 128, 128>;
  check_walk<TmaWgmmaMainloop<Sm90WgmmaDefault<>, PerTensor, 128>>();
  check_walk<TmaWgmmaMainloop<WgmmaTilePolicy<128, 192, 2, 4>, PerTensor, 128>>();
  check_walk<TmaWgmmaMainloop<Sm90WgmmaLarge<>, Bw, 128>>();
}

/// The ping-pong schedule's skip over the other consumer's tile lands where n single steps land
/// (stage and phase), for every start, stage count and skip length, including 0 (an empty split).
TEST(WgmmaRingPosition, AdvanceByMatchesSingleSteps) {
  auto check = [](auto stages_c) {
    constexpr int kStages = decltype(stages_c)::value;
    for (int stage = 0; stage < kStages; ++stage)
      for (int phase = 0; phase < 2; ++phase)
        for (int n = 0; n < 5 * kStages + 3; ++n) {
          RingPosition stepped{stage, phase}, jumped{stage, phase};
          for (int i = 0; i < n; ++i) stepped.advance<kStages>();
          jumped.advance_by<kStages>(n);
          ASSERT_EQ(jumped.stage, stepped.stage) << kStages << " " << stage << " " << n;
          ASSERT_EQ(jumped.phase, stepped.phase) << kStages << " " << stage << " " << n;
        }
  };
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 5>{});
  check(std::integral_constant<int, 8>{});
}

/// A's TMA box: the whole BlockM once M reaches it, else M rounded up to the 8-row swizzle atom
/// (decode copies 1 KiB of A per stage at M = 1, not 8 KiB of zero fill).
TEST(WgmmaMainloop, ABoxRowsFollowSmallM) {
  using Small = TmaWgmmaMainloop<Sm90WgmmaSmallM<>, PerTensor, 128>;     // BlockM 64
  using Default = TmaWgmmaMainloop<Sm90WgmmaDefault<>, PerTensor, 128>;  // BlockM 128
  EXPECT_EQ(Small::a_box_rows(1), 8);
  EXPECT_EQ(Small::a_box_rows(8), 8);
  EXPECT_EQ(Small::a_box_rows(9), 16);
  EXPECT_EQ(Small::a_box_rows(63), 64);
  EXPECT_EQ(Small::a_box_rows(64), 64);
  EXPECT_EQ(Small::a_box_rows(100000), 64);
  EXPECT_EQ(Default::a_box_rows(16), 16);
  EXPECT_EQ(Default::a_box_rows(100), 104);
  EXPECT_EQ(Default::a_box_rows(129), 128);
}

/// The last partial tile's box (OperandTail): the rows left past the last whole tile, rounded up
/// to 8; none when one box holds every row, the tiles end on the last row, or the rounded rest is
/// a whole box; none with a cluster (its boxes are half tiles, kept whole).
TEST(WgmmaMainloop, TailBoxHoldsTheRowsLeft) {
  using Default = TmaWgmmaMainloop<Sm90WgmmaDefault<>, PerTensor, 128>;  // 128 x 128
  using Tail = Default::OperandTail;
  auto same = [](Tail a, Tail b) {
    return a.origin == b.origin && a.rows == b.rows && a.box == b.box;
  };
  EXPECT_TRUE(same(Default::operand_tail(200, 128), Tail{128, 72, 128}));
  EXPECT_TRUE(same(Default::operand_tail(197, 128), Tail{128, 72, 128}));  // 69 rows, 3 zeros
  EXPECT_TRUE(same(Default::operand_tail(129, 128), Tail{128, 8, 128}));
  EXPECT_TRUE(same(Default::operand_tail(1100, 128), Tail{1024, 80, 128}));
  EXPECT_TRUE(same(Default::operand_tail(576, 256), Tail{512, 64, 256}));
  EXPECT_EQ(Default::operand_tail(256, 128).origin, -1);  // whole tiles
  EXPECT_EQ(Default::operand_tail(100, 104).origin, -1);  // one box (a_box_rows) holds them
  EXPECT_EQ(Default::operand_tail(250, 128).origin, -1);  // 122 rows round up to the box
  using Cluster = TmaWgmmaMainloop<Sm90WgmmaDefaultMulticastA<>, PerTensor, 128>;
  EXPECT_EQ(Cluster::operand_tail(200, 128).origin, -1);
}

}  // namespace
}  // namespace fp8gemm
