// SPDX-License-Identifier: MIT
/// Host tests of the Hopper building blocks (no GPU): wgmma shared-memory descriptor bit fields
/// for known inputs (literal numbers worked out from the PTX ISA "Matrix Descriptor Format"
/// table), the k-step advance, the 128-byte swizzle (a permutation of every 1024-B atom), the
/// wgmma accumulator map (a bijection onto 64 x N) and the TMA tensor-map refusals. Built by the
/// host compiler, by clang as HIP host code and by nvcc (sm90_nvcc_compile_test.cu includes it).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/sm90_accumulation_model.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/tile/smem_swizzle.hpp"

namespace fp8gemm::arch {
namespace {

// ---- shared-memory matrix descriptor ----------------------------------------------------------

// Expected values by hand, field by field (start >> 4 at bit 0, LBO >> 4 at 16, SBO >> 4 at 32,
// base offset at 49, layout at 62):
//   start 0x400 (1024): 0x40; LBO 16: 1 << 16; SBO 1024: 0x40 << 32; 128B swizzle: 1 << 62
//   -> 0x4000'0040'0001'0040.
TEST(Sm90SmemDescriptor, KMajorSwizzle128BitFields) {
  constexpr Sm90SmemDescriptor d = Sm90SmemDescriptor::k_major_swizzle128(0x400);
  static_assert(d.bits == 0x4000004000010040ull, "descriptor of a K-major SW128 tile at 1024");
  EXPECT_EQ(d.bits, 0x4000004000010040ull);
  EXPECT_EQ(d.start_address(), 0x400u);
  EXPECT_EQ(d.leading_byte_offset(), 16u);
  EXPECT_EQ(d.stride_byte_offset(), 1024u);
  EXPECT_EQ(d.base_offset(), 0u);
  EXPECT_EQ(d.layout(), Sm90SmemLayout::kSwizzle128B);

  // start 0x1C400 (115,712, near the top of a 227 KiB allocation): 0x1C40 in bits [0, 14).
  EXPECT_EQ(Sm90SmemDescriptor::k_major_swizzle128(0x1C400).bits, 0x4000004000011C40ull);
}

// Every field at a distinct value: start 0x3FFF0 -> 0x3FFF; LBO 0x100 -> 0x10 << 16 = 0x100000;
// SBO 0x2000 -> 0x200 << 32 = 0x200'0000'0000; base offset 5 << 49 = 0xA'0000'0000'0000;
// 64B swizzle 2 << 62 = 0x8000'0000'0000'0000. Sum 0x800A'0200'0010'3FFF.
TEST(Sm90SmemDescriptor, FieldsDoNotOverlap) {
  constexpr Sm90SmemDescriptor d =
      Sm90SmemDescriptor::make(0x3FFF0, 0x100, 0x2000, 5, Sm90SmemLayout::kSwizzle64B);
  EXPECT_EQ(d.bits, 0x800A020000103FFFull);
  EXPECT_EQ(d.start_address(), 0x3FFF0u);
  EXPECT_EQ(d.leading_byte_offset(), 0x100u);
  EXPECT_EQ(d.stride_byte_offset(), 0x2000u);
  EXPECT_EQ(d.base_offset(), 5u);
  EXPECT_EQ(d.layout(), Sm90SmemLayout::kSwizzle64B);
  // Each field alone, at its maximum, sets exactly its bits.
  EXPECT_EQ(Sm90SmemDescriptor::make(0xFFFFFFFF, 0, 0, 0, Sm90SmemLayout::kInterleave).bits,
            0x3FFFull);
  EXPECT_EQ(Sm90SmemDescriptor::make(0, 0xFFFFFFFF, 0, 0, Sm90SmemLayout::kInterleave).bits,
            0x3FFFull << 16);
  EXPECT_EQ(Sm90SmemDescriptor::make(0, 0, 0xFFFFFFFF, 0, Sm90SmemLayout::kInterleave).bits,
            0x3FFFull << 32);
  EXPECT_EQ(Sm90SmemDescriptor::make(0, 0, 0, 0xFFFFFFFF, Sm90SmemLayout::kInterleave).bits,
            0x7ull << 49);
  EXPECT_EQ(Sm90SmemDescriptor::make(0, 0, 0, 0, Sm90SmemLayout::kSwizzle32B).bits, 0x3ull << 62);
  // The low 4 bits of byte quantities are not encoded.
  EXPECT_EQ(Sm90SmemDescriptor::make(0x40F, 0x1F, 0x40F, 0, Sm90SmemLayout::kInterleave).bits,
            0x40ull | (0x1ull << 16) | (0x40ull << 32));
}

// A 128-byte K-block is 4 k-steps of 32 B: start 0x400, 0x420, 0x440, 0x460 (fields 0x40, 0x42,
// 0x44, 0x46); the second 64-row wave of a 128-row tile starts 64 · 128 = 0x2000 B further
// (0x2400 -> 0x240). Nothing but the start address changes.
TEST(Sm90SmemDescriptor, KStepAdvance) {
  constexpr Sm90SmemDescriptor base = Sm90SmemDescriptor::k_major_swizzle128(0x400);
  std::uint64_t const expected[4] = {0x4000004000010040ull, 0x4000004000010042ull,
                                     0x4000004000010044ull, 0x4000004000010046ull};
  for (int k = 0; k < 4; ++k) {
    Sm90SmemDescriptor const d = base.advanced(
        static_cast<std::uint32_t>(k * Sm90Wgmma64xNx32<128, e4m3fn, e4m3fn>::kKStepBytes));
    EXPECT_EQ(d.bits, expected[k]) << "k-step " << k;
  }
  EXPECT_EQ(base.advanced(64 * 128).bits, 0x4000004000010240ull);
  EXPECT_EQ(base.advanced(64 * 128).advanced(3 * 32).start_address(), 0x400u + 0x2000u + 96u);
  // advancing equals encoding the advanced address
  for (std::uint32_t start = 0; start < 227 * 1024; start += 1024) {
    for (std::uint32_t step = 0; step < 1024; step += 32) {
      ASSERT_EQ(Sm90SmemDescriptor::k_major_swizzle128(start).advanced(step).bits,
                Sm90SmemDescriptor::k_major_swizzle128(start + step).bits)
          << "start " << start << " step " << step;
    }
  }
  // a stage's descriptor as stage 0's advanced in 16-byte units (the main loop's form), for every
  // stage offset that keeps the address inside 227 KiB of shared memory
  for (std::uint32_t start = 0; start < 227 * 1024; start += 1024) {
    for (std::uint32_t offset = 0; start + offset + 96 < 227 * 1024; offset += 1024) {
      for (std::uint32_t step = 0; step <= 96; step += 32) {
        ASSERT_EQ(
            Sm90SmemDescriptor::k_major_swizzle128(start).advanced_units((offset + step) / 16).bits,
            Sm90SmemDescriptor::k_major_swizzle128(start + offset + step).bits)
            << "start " << start << " offset " << offset << " step " << step;
      }
    }
  }
}

// ---- 128-byte swizzle -------------------------------------------------------------------------

TEST(Swizzle128B, KnownOffsets) {
  static_assert(Swizzle128B::offset(0, 0) == 0, "row 0 is not permuted");
  EXPECT_EQ(Swizzle128B::offset(1, 0), 144u);    // row 1 chunk 0 -> chunk 1: 128 + 16
  EXPECT_EQ(Swizzle128B::offset(1, 16), 128u);   // row 1 chunk 1 -> chunk 0
  EXPECT_EQ(Swizzle128B::offset(7, 112), 896u);  // row 7 chunk 7 -> chunk 0: 7 · 128
  EXPECT_EQ(Swizzle128B::offset(9, 37), 1205u);  // row 9 (9 % 8 = 1) chunk 2 -> 3: 1152 + 48 + 5
  EXPECT_EQ(Swizzle128B::offset(8, 37), 1061u);  // row 8 repeats row 0's (identity) pattern
  EXPECT_EQ(Swizzle128B::chunk(5, 6), 3u);       // 6 ^ 5
}

TEST(Swizzle128B, PermutesEveryAtomAndKeepsRowsAndChunks) {
  constexpr std::uint32_t kAtoms = 64;  // a 64 KiB tile
  for (std::uint32_t atom = 0; atom < kAtoms; ++atom) {
    std::vector<bool> hit(Swizzle128B::kAtomBytes, false);
    for (std::uint32_t o = atom * 1024; o < (atom + 1) * 1024; ++o) {
      std::uint32_t const s = Swizzle128B::apply(o);
      ASSERT_GE(s, atom * 1024) << o;
      ASSERT_LT(s, (atom + 1) * 1024) << o;
      ASSERT_EQ(s / 128, o / 128) << "row changed at " << o;
      ASSERT_EQ(s % 16, o % 16) << "bytes of a 16-B chunk must stay together, at " << o;
      ASSERT_EQ(Swizzle128B::apply(s), o) << "the swizzle is an involution";
      std::uint32_t const row = o / 128, chunk = (o % 128) / 16;
      ASSERT_EQ((s % 128) / 16, chunk ^ (row % 8)) << o;
      ASSERT_FALSE(hit[s - atom * 1024]) << "two bytes map to " << s;
      hit[s - atom * 1024] = true;
    }
  }
}

// ---- wgmma accumulator map --------------------------------------------------------------------

template <int N>
void expect_accumulator_bijection() {
  using W = Sm90Wgmma64xNx32<N, e4m3fn, e5m2>;
  static_assert(W::kAccumulators == N / 2, "N/2 FP32 registers per thread");
  std::vector<int> owner(64 * N, -1);
  for (int t = 0; t < W::kThreads; ++t) {
    for (int i = 0; i < W::kAccumulators; ++i) {
      int const r = W::acc_row(t, i), c = W::acc_col(t, i);
      ASSERT_GE(r, 0);
      ASSERT_LT(r, 64);
      ASSERT_GE(c, 0);
      ASSERT_LT(c, N);
      ASSERT_EQ(owner[r * N + c], -1) << "N " << N << ": (" << r << ", " << c << ") twice";
      owner[r * N + c] = t * 1000 + i;
    }
  }
  for (int e = 0; e < 64 * N; ++e) ASSERT_NE(owner[e], -1) << "N " << N << ": element " << e;
}

TEST(Sm90Wgmma64xNx32, AccumulatorMapIsABijectionOnto64xN) {
  expect_accumulator_bijection<8>();
  expect_accumulator_bijection<16>();
  expect_accumulator_bijection<32>();
  expect_accumulator_bijection<64>();
  expect_accumulator_bijection<128>();
  expect_accumulator_bijection<192>();
  expect_accumulator_bijection<256>();
}

TEST(Sm90Wgmma64xNx32, AccumulatorMapKnownEntries) {
  using W = Sm90Wgmma64xNx32<256, e4m3fn, e4m3fn>;
  // {thread, register, row, column}
  int const cases[][4] = {
      {0, 0, 0, 0},   {0, 1, 0, 1},       {0, 2, 8, 0},    {0, 3, 8, 1},
      {0, 4, 0, 8},   {5, 0, 1, 2},       {37, 6, 25, 10}, {127, 127, 63, 255},
      {64, 0, 32, 0}, {128 + 5, 0, 1, 2},  // thread 133 is thread 5 of its warpgroup
  };
  for (auto const& c : cases) {
    EXPECT_EQ(W::acc_row(c[0], c[1]), c[2]) << "thread " << c[0] << " register " << c[1];
    EXPECT_EQ(W::acc_col(c[0], c[1]), c[3]) << "thread " << c[0] << " register " << c[1];
  }
}

// The narrow atoms of the swapped decode policies (wgmma N = M of C: 8, 16, 32). PTX ISA, figure
// "WGMMA .m64nNk32 register fragment layout for accumulator matrix D": thread T0 holds d0, d1 at
// row 0, columns 0 and 1, and d2, d3 at row 8; T1 starts at column 2, T4 at row 1, warp 1 (T32)
// at row 16; the next 8 columns are d4..d7. Its last entry for N = 8 is T127 {d2, d3} at row 63,
// columns 6 and 7.
TEST(Sm90Wgmma64xNx32, NarrowAccumulatorMapKnownEntries) {
  using W8 = Sm90Wgmma64xNx32<8, e5m2, e4m3fn>;
  using W16 = Sm90Wgmma64xNx32<16, e4m3fn, e4m3fn>;
  using W32 = Sm90Wgmma64xNx32<32, e4m3fn, e5m2>;
  static_assert(W8::kAccumulators == 4 && W16::kAccumulators == 8 && W32::kAccumulators == 16,
                "m64nNk32 f32 D: N / 2 registers per thread");
  // {thread, register, row, column}
  int const n8[][4] = {{0, 0, 0, 0},   {0, 1, 0, 1},    {0, 2, 8, 0},   {0, 3, 8, 1},
                       {1, 0, 0, 2},   {3, 1, 0, 7},    {4, 0, 1, 0},   {31, 3, 15, 7},
                       {32, 0, 16, 0}, {127, 2, 63, 6}, {127, 3, 63, 7}};
  for (auto const& c : n8) {
    EXPECT_EQ(W8::acc_row(c[0], c[1]), c[2]) << "N 8 thread " << c[0] << " register " << c[1];
    EXPECT_EQ(W8::acc_col(c[0], c[1]), c[3]) << "N 8 thread " << c[0] << " register " << c[1];
  }
  int const n16[][4] = {{0, 4, 0, 8}, {0, 7, 8, 9}, {5, 5, 1, 11}, {127, 7, 63, 15}};
  for (auto const& c : n16) {
    EXPECT_EQ(W16::acc_row(c[0], c[1]), c[2]) << "N 16 thread " << c[0] << " register " << c[1];
    EXPECT_EQ(W16::acc_col(c[0], c[1]), c[3]) << "N 16 thread " << c[0] << " register " << c[1];
  }
  int const n32[][4] = {{6, 13, 1, 29}, {64, 12, 32, 24}, {127, 15, 63, 31}};
  for (auto const& c : n32) {
    EXPECT_EQ(W32::acc_row(c[0], c[1]), c[2]) << "N 32 thread " << c[0] << " register " << c[1];
    EXPECT_EQ(W32::acc_col(c[0], c[1]), c[3]) << "N 32 thread " << c[0] << " register " << c[1];
  }
}

// An 8-, 16- or 32-row K-major operand (the swapped kernel's A tile as wgmma's B): the same
// descriptor as a 64-row one. The stride byte offset (1024 B between 8-row groups) is not read at
// N = 8 (one group) but locates rows 8..15 and 16..31 at N = 16 / 32, so it must be 1024 there;
// the k-step advance stays +32 B inside the 128-B row.
TEST(Sm90SmemDescriptor, NarrowOperandTiles) {
  for (std::uint32_t const rows : {8u, 16u, 32u}) {
    std::uint32_t const start = 0x8000 + rows * 128;  // 1024-B aligned for every rows here
    ASSERT_EQ(start % 1024, 0u);
    Sm90SmemDescriptor const d = Sm90SmemDescriptor::k_major_swizzle128(start);
    EXPECT_EQ(d.start_address(), start) << rows;
    EXPECT_EQ(d.stride_byte_offset(), 1024u) << rows;
    EXPECT_EQ(d.leading_byte_offset(), 16u) << rows;
    EXPECT_EQ(d.base_offset(), 0u) << rows;
    EXPECT_EQ(d.layout(), Sm90SmemLayout::kSwizzle128B) << rows;
    // row g·8 of the tile starts g · SBO after the start: within the rows TMA wrote
    EXPECT_LE((rows / 8 - 1) * d.stride_byte_offset() + 128, rows * 128) << rows;
    EXPECT_EQ(d.advanced(3 * 32).start_address(), start + 96) << rows;
  }
  // literal: a 16-row tile at 0x8800: start >> 4 = 0x880, SBO 1024 >> 4 = 0x40, LBO 1, layout 1
  EXPECT_EQ(Sm90SmemDescriptor::k_major_swizzle128(0x8800).bits, 0x4000004000010880ull);
}

// ---- accumulation model (tests/common) against the H200 table ---------------------------------

// tests/results/h200/2026-11-30_d12888b_wgmma_first_light.log: with a big product 2^0 and small
// ones 2^-t, every experiment kept the smalls exactly for t <= 13 and lost all of them for t >= 14:
// one small in the same k-step, 31 in the same k-step, one in the next k-step, 14 over later
// k-steps, and a small D meeting a big product in a later k-step.
TEST(Sm90AccumulationModel, ReproducesTheMeasuredTable) {
  using test::Sm90AccumulationModel;
  auto accumulate = [](std::vector<double> const& p,
                       Sm90AccumulationModel m = Sm90AccumulationModel::kMeasured) {
    return test::sm90_wgmma_accumulate(test::products_with_value_exponents(p), m);
  };
  for (int t = 8; t <= 28; ++t) {
    double const s = std::ldexp(1.0, -t);
    double const kept = t <= 13 ? 1.0 : 0.0;
    std::vector<double> p(512, 0.0);
    p[0] = 1.0;
    p[1] = s;  // one small, same k-step
    EXPECT_EQ(accumulate(p), 1.0 + kept * s) << t;
    for (int k = 2; k < 32; ++k) p[k] = s;  // 31 smalls, same k-step
    EXPECT_EQ(accumulate(p), 1.0 + kept * 31 * s) << t;
    std::fill(p.begin() + 1, p.end(), 0.0);
    for (int j = 1; j < 15; ++j) p[32 * j] = s;  // 14 smalls, one per later k-step
    EXPECT_EQ(accumulate(p), 1.0 + kept * 14 * s) << t;
    std::fill(p.begin(), p.end(), 0.0);
    p[1] = s;
    p[480] = 1.0;  // the small one first: D = s, then the big product arrives
    EXPECT_EQ(accumulate(p), 1.0 + kept * s) << t;
  }
  // Cuts go toward zero: 1 - 2^-14 keeps 1 (toward -inf would give 1 - 2^-13).
  std::vector<double> n = {1.0, -std::ldexp(1.0, -14)};
  EXPECT_EQ(accumulate(n), 1.0f);
  // Operand exponents: 1.75 · 1.75 = 3.0625 aligns at 2^0, not 2^1, so a term 2^-13 survives the
  // products' cut; the sum 3.0625 + 2^-13 then needs 15 significant bits and is cut to 14.
  std::vector<test::Sm90Product> q = {{3.0625, 0}, {std::ldexp(1.0, -13), -13}};
  EXPECT_EQ(test::sm90_wgmma_accumulate(q, Sm90AccumulationModel::kWithoutSumCut),
            3.0625f + std::ldexp(1.0f, -13));
  EXPECT_EQ(test::sm90_wgmma_accumulate(q), 3.0625f);
  EXPECT_EQ(test::sm90_wgmma_accumulate(q, Sm90AccumulationModel::kValueExponentsNoSumCut),
            3.0625f);
  // Cancellation: 1 - (1 - 2^-7) leaves 2^-7 on the products' grid (2^-13) exactly; a later
  // k-step's 2^-20 then meets D = 2^-7 and survives (2^-13 below it): precision follows D down.
  std::vector<double> c(64, 0.0);
  c[0] = 1.0;
  c[1] = -(1.0 - std::ldexp(1.0, -7));
  c[32] = std::ldexp(1.0, -20);
  EXPECT_EQ(accumulate(c), std::ldexp(1.0f, -7) + std::ldexp(1.0f, -20));
  // scale-d = 0 on the first k-step: an all-zero chain is +0, and no D from before leaks in
  EXPECT_EQ(accumulate(std::vector<double>(64, 0.0)), 0.0f);
}

// The chain's a-posteriori bound (sm90_wgmma_error_bound): on random e4m3-like chains of 16384
// products it covers the model's error against the exact sum, and it is not vacuous: below 1/8 of
// the a-priori bound's scale, sum |p| (measured: 0.4-1.3 % of it, 110-930x the chain's actual
// error). A crafted chain where every cut loses almost a full unit: 32 products 1 + (1 - 2^-20) ·
// 2^-13 each lose (1 - 2^-20) · 2^-13; the bound counts those 32 units and one more for the sum's
// cut (a full unit at 2^5, though this sum, 32, is exact): within a factor 2 + 2^-19 of what is
// lost.
TEST(Sm90AccumulationModel, ErrorBoundCoversTheChainAndIsNotVacuous) {
  std::mt19937 rng(20261202);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<test::Sm90Product> p(16384);
    double exact = 0.0, abs_sum = 0.0;
    for (auto& x : p) {
      // products of two values with 4 significant bits (e4m3's), as the GEMM's operands give
      auto four_bits = [](double v) {
        int e;
        double const m = std::frexp(v, &e);
        return std::ldexp(std::round(m * 16) / 16, e);
      };
      double const a = four_bits(normal(rng)), b = four_bits(normal(rng));
      x.value = a * b;
      x.exponent = x.value != 0.0 ? std::ilogb(a) + std::ilogb(b) : INT_MIN;
      exact += x.value, abs_sum += std::fabs(x.value);
    }
    double const err = std::fabs(test::sm90_wgmma_accumulate(p) - exact);
    double const bound = test::sm90_wgmma_error_bound(p);
    EXPECT_LE(err, bound) << trial;
    EXPECT_GT(err, 0.0) << trial;  // the chain does lose something: the check can fail
    EXPECT_LT(bound, abs_sum / 8) << trial;
  }
  std::vector<test::Sm90Product> worst(
      32, {1.0 + (1.0 - std::ldexp(1.0, -20)) * std::ldexp(1.0, -13), 0});
  double const lost = 32 * (1.0 - std::ldexp(1.0, -20)) * std::ldexp(1.0, -13);
  EXPECT_EQ(test::sm90_wgmma_accumulate(worst), 32.0f);
  EXPECT_GE(test::sm90_wgmma_error_bound(worst), lost);
  EXPECT_LE(test::sm90_wgmma_error_bound(worst), 64 * std::ldexp(1.0, -13));
  // Each part of the bound, exactly, so that none can go missing: one product (a unit for its cut
  // and one for the sum's); zeros count for nothing; D counts as a term in the next k-step, whose
  // unit a larger product there sets (2^20: unit 2^7 for D, the product and the sum).
  auto bound_of = [](std::vector<double> const& p) {
    return test::sm90_wgmma_error_bound(test::products_with_value_exponents(p));
  };
  EXPECT_EQ(bound_of({1.5}), 2 * std::ldexp(1.0, -13));
  std::vector<double> one_in_32(32, 0.0);
  one_in_32[17] = 1.5;
  EXPECT_EQ(bound_of(one_in_32), 2 * std::ldexp(1.0, -13));
  std::vector<double> two_steps(64, 0.0);
  two_steps[0] = 1.5, two_steps[32] = std::ldexp(1.0, 20);
  EXPECT_EQ(bound_of(two_steps), 2 * std::ldexp(1.0, -13) + 3 * std::ldexp(1.0, 7));
}

// ---- TMA tensor-map parameters ----------------------------------------------------------------

alignas(1024) unsigned char g_tensor[4096];

TmaTensor2d valid_operand() {  // a K-major fp8 operand, K = 4096, 512 rows, box {128 B, 128 rows}
  TmaTensor2d t;
  t.base = g_tensor;
  t.element = TmaElement::kU8;
  t.inner = 4096;
  t.outer = 512;
  t.row_stride_bytes = 4096;
  t.box_inner = 128;
  t.box_outer = 128;
  t.swizzle = TmaSwizzle::k128B;
  return t;
}

::testing::AssertionResult refused(TmaTensor2d const& t, StatusCode code,
                                   std::string const& words) {
  Status const s = check_tma_tensor_2d(t);
  if (s.ok())
    return ::testing::AssertionFailure() << "accepted; expected a refusal with '" << words << "'";
  if (s.code() != code) return ::testing::AssertionFailure() << "wrong code: " << s.to_string();
  if (s.message().find(words) == std::string::npos)
    return ::testing::AssertionFailure() << "message lacks '" << words << "': " << s.to_string();
  if (s.message().rfind("TMA tensor map: ", 0) != 0)
    return ::testing::AssertionFailure() << "message does not name the TMA map: " << s.to_string();
  return ::testing::AssertionSuccess();
}

TEST(TmaTensor2d, AcceptsOperandAndOutputMaps) {
  EXPECT_TRUE(check_tma_tensor_2d(valid_operand()).ok())
      << check_tma_tensor_2d(valid_operand()).to_string();
  TmaTensor2d c;  // fp32 output 64 x 256, unswizzled box of a whole 64 x 256 tile
  c.base = g_tensor;
  c.element = TmaElement::kF32;
  c.inner = 256;
  c.outer = 64;
  c.row_stride_bytes = 1024;
  c.box_inner = 256;
  c.box_outer = 64;
  EXPECT_TRUE(check_tma_tensor_2d(c).ok()) << check_tma_tensor_2d(c).to_string();
  TmaTensor2d edge = valid_operand();  // the largest legal values
  edge.inner = std::uint64_t{1} << 32;
  edge.row_stride_bytes = (std::uint64_t{1} << 40) - 16;
  edge.box_outer = 256;
  EXPECT_TRUE(check_tma_tensor_2d(edge).ok()) << check_tma_tensor_2d(edge).to_string();
}

TEST(TmaTensor2d, RefusesWhatTheDriverRefuses) {
  TmaTensor2d t = valid_operand();
  t.base = nullptr;
  EXPECT_TRUE(refused(t, StatusCode::kErrorNullPointer, "null"));
  t = valid_operand();
  t.base = g_tensor + 8;
  EXPECT_TRUE(refused(t, StatusCode::kErrorMisaligned, "16-byte aligned"));
  t = valid_operand();
  t.inner = 0;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidSize, "[1, 2^32]"));
  t = valid_operand();
  t.outer = (std::uint64_t{1} << 32) + 1;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidSize, "[1, 2^32]"));
  t = valid_operand();
  t.row_stride_bytes = 4104;  // K = 4104 is a legal GEMM, but not for TMA
  t.inner = 4100;
  EXPECT_TRUE(refused(t, StatusCode::kErrorMisaligned, "multiple of 16 bytes; got 4104"));
  t = valid_operand();
  t.row_stride_bytes = std::uint64_t{1} << 40;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidSize, "below 2^40"));
  t = valid_operand();
  t.row_stride_bytes = 4080;
  EXPECT_TRUE(refused(t, StatusCode::kErrorLeadingDimension, "smaller than a row"));
  t = valid_operand();
  t.box_outer = 257;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidArgument, "[1, 256]"));
  t = valid_operand();
  t.box_inner = 0;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidArgument, "[1, 256]"));
  t = valid_operand();
  t.swizzle = TmaSwizzle::kNone;
  t.box_inner = 24;
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidArgument, "multiple of 16 bytes; got 24"));
  t = valid_operand();
  t.box_inner = 256;  // 256 B of K in one box row: more than the 128-byte swizzle span
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidArgument, "exceeds the swizzle span of 128"));
  t = valid_operand();
  t.element = TmaElement::kBf16;
  t.row_stride_bytes = 8192;  // 4096 bf16
  t.box_inner = 128;          // 256 B of bf16
  EXPECT_TRUE(refused(t, StatusCode::kErrorInvalidArgument, "256 bytes exceeds"));
  t.swizzle = TmaSwizzle::k64B;
  t.box_inner = 32;  // 64 B: exactly the span
  EXPECT_TRUE(check_tma_tensor_2d(t).ok()) << check_tma_tensor_2d(t).to_string();
}

TEST(TmaDescriptor, IsA128ByteAligned128ByteBlock) {
  static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 128,
                "CUtensorMap's size and (CUDA 13) alignment");
  EXPECT_EQ(tma_element_bytes(TmaElement::kF32), 4);
  EXPECT_EQ(tma_swizzle_span_bytes(TmaSwizzle::k128B), 128);
}

}  // namespace
}  // namespace fp8gemm::arch
