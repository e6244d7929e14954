// SPDX-License-Identifier: MIT
// The emulator's matrix-instruction tables (arch/emu/matrix_semantics.hpp) against facts quoted
// from AMD's sources, written here as literal numbers (never computed with the tables' formulas);
// the CDNA atoms' fragment mappings against those tables; and an MX-32 product that is sensitive
// to the K order inside one gfx950 MFMA, run both on one instruction and through a whole GEMM,
// which the earlier "32 contiguous K per lane" layout fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "fp8gemm/arch/emu/matrix_semantics.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::test {
namespace {

using emu::Coord;

struct LaneByte {
  int lane, byte, row, k;
};

template <class Semantics>
void expect_operand_facts(std::vector<LaneByte> const& facts) {
  for (LaneByte const& f : facts) {
    Coord const a = Semantics::a(f.lane, f.byte), b = Semantics::b(f.lane, f.byte);
    EXPECT_EQ(a.row, f.row) << "A lane " << f.lane << " byte " << f.byte;
    EXPECT_EQ(a.col, f.k) << "A lane " << f.lane << " byte " << f.byte;
    EXPECT_EQ(b.row, f.row) << "B lane " << f.lane << " byte " << f.byte;
    EXPECT_EQ(b.col, f.k) << "B lane " << f.lane << " byte " << f.byte;
  }
}

/// Every (row, k) of the kM x kK operand is held by exactly one (lane, byte); D likewise.
template <class Semantics>
void expect_bijections() {
  std::set<std::pair<int, int>> a, d;
  for (int lane = 0; lane < Semantics::kWave; ++lane) {
    for (int i = 0; i < Semantics::kABytes; ++i) {
      Coord const c = Semantics::a(lane, i);
      ASSERT_TRUE(c.row >= 0 && c.row < Semantics::kM && c.col >= 0 && c.col < Semantics::kK);
      a.insert({c.row, c.col});
    }
    for (int r = 0; r < Semantics::kCRegs; ++r) {
      Coord const c = Semantics::c(lane, r);
      d.insert({c.row, c.col});
    }
  }
  EXPECT_EQ(a.size(), std::size_t(Semantics::kM) * Semantics::kK);
  EXPECT_EQ(d.size(), std::size_t(Semantics::kM) * Semantics::kN);
}

// AMD matrix instruction calculator (CDNA3), v_mfma_f32_16x16x32_fp8_fp8, "--register-layout":
// A[i][k] is in lane i + 16*floor(k/8), byte k % 8; D[i][j] is in lane j + 16*floor(i/4), GPR i
// % 4.
TEST(MfmaTables, Gfx942Mfma16x16x32MatchesTheCalculator) {
  using S = emu::MfmaF32_16x16x32F8;
  expect_operand_facts<S>({{0, 0, 0, 0}, {21, 3, 5, 11}, {47, 7, 15, 23}, {63, 7, 15, 31}});
  EXPECT_EQ(S::c(21, 2).row, 6);
  EXPECT_EQ(S::c(21, 2).col, 5);
  EXPECT_EQ(S::c(63, 3).row, 15);
  expect_bijections<S>();
}

// Calculator, v_mfma_f32_32x32x16_fp8_fp8: A[i][k] in lane i + 32*floor(k/8), byte k % 8;
// D[i][j] in lane j + 32*floor((i % 8)/4), GPR 4*floor(i/8) + i % 4.
TEST(MfmaTables, Gfx942Mfma32x32x16MatchesTheCalculator) {
  using S = emu::MfmaF32_32x32x16F8;
  expect_operand_facts<S>({{0, 0, 0, 0}, {40, 5, 8, 13}, {31, 7, 31, 7}, {63, 7, 31, 15}});
  EXPECT_EQ(S::c(40, 6).row, 14);
  EXPECT_EQ(S::c(40, 6).col, 8);
  EXPECT_EQ(S::c(5, 15).row, 27);
  expect_bijections<S>();
}

// AMD's ISA emulator and AMD's CDNA4 FP8 GEMM blog, v_mfma_scale_f32_16x16x128_f8f6f4 with FP8
// operands: lane 17 (row 1, group 1) holds k = 16..31 in bytes 0..15 and k = 80..95 in bytes
// 16..31; lane 63 holds k = 48..63 and 112..127 of row 15.
TEST(MfmaTables, Gfx950Mfma16x16x128OperandsMatchAmd) {
  using S = emu::MfmaScaleF32_16x16x128F8;
  expect_operand_facts<S>({{0, 0, 0, 0},
                           {0, 16, 0, 64},
                           {17, 0, 1, 16},
                           {17, 15, 1, 31},
                           {17, 16, 1, 80},
                           {17, 31, 1, 95},
                           {48, 0, 0, 48},
                           {63, 15, 15, 63},
                           {63, 16, 15, 112},
                           {63, 31, 15, 127}});
  expect_bijections<S>();
}

// AMD's "Matrix Core Programming on CDNA3/CDNA4" blog, 32x32x64 FP8 kernel: lane t holds row t%32,
// k = 16*(t/32) + 0..15 in bytes 0..15 and k = 32 + 16*(t/32) + 0..15 in bytes 16..31.
TEST(MfmaTables, Gfx950Mfma32x32x64OperandsMatchAmd) {
  using S = emu::MfmaScaleF32_32x32x64F8;
  expect_operand_facts<S>({{0, 0, 0, 0},
                           {0, 16, 0, 32},
                           {32, 15, 0, 31},
                           {33, 0, 1, 16},
                           {33, 16, 1, 48},
                           {31, 31, 31, 47},
                           {63, 31, 31, 63}});
  expect_bijections<S>();
}

// CDNA4 ISA guide, section 7.2.1: the E8M0 scale of row r for k = 32b .. 32b+31 is in lane
// r + 16b (16x16x128) or r + 32b (32x32x64). Note (row 1, k 16): held by lane 17, scaled by lane 1.
TEST(MfmaTables, Gfx950ScaleLanesMatchTheIsaGuide) {
  using S16 = emu::MfmaScaleF32_16x16x128F8;
  using S32 = emu::MfmaScaleF32_32x32x64F8;
  EXPECT_EQ(S16::scale_lane(0, 0), 0);
  EXPECT_EQ(S16::scale_lane(1, 16), 1);
  EXPECT_EQ(S16::scale_lane(1, 80), 33);
  EXPECT_EQ(S16::scale_lane(5, 70), 37);
  EXPECT_EQ(S16::scale_lane(15, 127), 63);
  EXPECT_EQ(S32::scale_lane(1, 16), 1);
  EXPECT_EQ(S32::scale_lane(1, 48), 33);
  EXPECT_EQ(S32::scale_lane(7, 40), 39);
  EXPECT_EQ(S32::scale_lane(31, 63), 63);
}

/// The atom's fragment mapping (what its LDS reads put in each byte) equals the instruction table.
template <class Atom, class Semantics>
void expect_atom_matches_table() {
  static_assert(Atom::kAChunks * Atom::kAChunkBytes == Semantics::kABytes);
  for (int lane = 0; lane < Semantics::kWave; ++lane) {
    for (int c = 0; c < Atom::kAChunks; ++c) {
      for (int j = 0; j < Atom::kAChunkBytes; ++j) {
        Coord const t = Semantics::a(lane, c * Atom::kAChunkBytes + j);
        EXPECT_EQ(Atom::a_row(lane, c), t.row) << "lane " << lane << " chunk " << c;
        EXPECT_EQ(Atom::a_k(lane, c) + j, t.col)
            << "lane " << lane << " chunk " << c << " byte " << j;
        Coord const u = Semantics::b(lane, c * Atom::kBChunkBytes + j);
        EXPECT_EQ(Atom::b_col(lane, c), u.row);
        EXPECT_EQ(Atom::b_k(lane, c) + j, u.col);
      }
    }
    for (int r = 0; r < Semantics::kCRegs; ++r) {
      EXPECT_EQ(Atom::c_row(lane, r), Semantics::c(lane, r).row);
      EXPECT_EQ(Atom::c_col(lane, r), Semantics::c(lane, r).col);
    }
  }
}

TEST(MfmaAtoms, FragmentMappingsMatchTheTables) {
  expect_atom_matches_table<arch::Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>, emu::MfmaF32_16x16x32F8>();
  expect_atom_matches_table<arch::Cdna3Mma32x32x16<e4m3fnuz, e4m3fnuz>, emu::MfmaF32_32x32x16F8>();
  expect_atom_matches_table<arch::Cdna4Mma16x16x128<e4m3fn, e4m3fn>,
                            emu::MfmaScaleF32_16x16x128F8>();
  expect_atom_matches_table<arch::Cdna4Mma32x32x64<e4m3fn, e4m3fn>, emu::MfmaScaleF32_32x32x64F8>();
}

// ---- MX-32, sensitive to the K order inside one MFMA
// ---------------------------------------------
//
// Every 32-K block gets its own power of two, for A and B, varying with the row too:
// s(r, b) = 2^kExp[(r + 3b) % 8]. Data are e4m3 values of magnitude [1, 2) with random signs, so a
// product's magnitude is set by its two scales to within a factor 4, and moving a 16-value chunk
// to another block's scale changes its contribution by 2^3 .. 2^14: far beyond the tolerance,
// which is a few FP32 roundings of the sum of |products|.
constexpr int kExp[8] = {-3, 0, 5, -7, 2, -5, 7, -1};
int mx_exponent(int row, int block) {
  return kExp[(row + 3 * block) % 8];
}

std::vector<std::uint8_t> unit_magnitude_e4m3(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mag(1.0f, 1.999f);
  std::vector<std::uint8_t> v(count);
  for (auto& x : v) x = float_to_fp8<e4m3fn>((rng() & 1 ? -1.0f : 1.0f) * mag(rng)).bits;
  return v;
}

/// Max over D of |D - ref| / (sum |products|), one instruction; `k_of(lane, chunk)` is the loader's
/// first k of a 16-byte chunk (the atom's, or the old layout), scales handed in as the mainloop
/// does (lane l: row l % kM, block l / kM).
template <class Semantics, class KOf>
double one_mfma_relative_error(KOf k_of) {
  constexpr int kM = Semantics::kM, kK = Semantics::kK;
  auto const a = unit_magnitude_e4m3(kM * kK, 7), b = unit_magnitude_e4m3(kM * kK, 8);  // [row][k]
  std::vector<std::array<std::uint8_t, 32>> fa(64), fb(64);
  std::vector<std::array<float, Semantics::kCRegs>> d(64);
  std::vector<emu::MmaLaneSlot> slots(64);
  std::vector<void*> ptrs(64);
  for (int l = 0; l < 64; ++l) {
    for (int c = 0; c < 2; ++c)
      for (int j = 0; j < 16; ++j) {
        fa[l][16 * c + j] = a[(l % kM) * kK + k_of(l, c) + j];
        fb[l][16 * c + j] = b[(l % kM) * kK + k_of(l, c) + j];
      }
    d[l].fill(0.0f);
    auto const scale = [&](int salt) {
      return e8m0::from_exponent(mx_exponent(l % kM + salt, l / kM)).bits;
    };
    slots[l] = {d[l].data(), fa[l].data(), fb[l].data(), scale(0), scale(5)};
    ptrs[l] = &slots[l];
  }
  emu::execute_mma<Semantics, e4m3fn, e4m3fn, /*kScaled=*/true>(ptrs.data(), 64);
  double worst = 0.0;
  for (int l = 0; l < 64; ++l)
    for (int r = 0; r < Semantics::kCRegs; ++r) {
      Coord const c = Semantics::c(l, r);
      double ref = 0.0, mag = 0.0;
      for (int k = 0; k < kK; ++k) {
        double const t = std::ldexp(double(fp8_to_float(e4m3fn::from_bits(a[c.row * kK + k]))),
                                    mx_exponent(c.row, k / 32)) *
                         std::ldexp(double(fp8_to_float(e4m3fn::from_bits(b[c.col * kK + k]))),
                                    mx_exponent(c.col + 5, k / 32));
        ref += t, mag += std::fabs(t);
      }
      worst = std::max(worst, std::fabs(double(d[l][r]) - ref) / mag);
    }
  return worst;
}

// One MFMA: the emulator rounds the exact sum to FP32 once, so the error is below 2^-24 of the
// sum of |products|; the bound used is 2^-23. The old layout (lane l holds k = 32*(l/S) + 16c + j)
// is off by orders of magnitude.
TEST(MfmaMx32KOrder, OneInstructionFollowsTheIsaLayoutAndTheOldLayoutFails) {
  double const bound = std::ldexp(1.0, -23);
  using A16 = arch::Cdna4Mma16x16x128<e4m3fn, e4m3fn>;
  using A32 = arch::Cdna4Mma32x32x64<e4m3fn, e4m3fn>;
  auto const atom16 = [](int l, int c) { return A16::a_k(l, c); };
  auto const atom32 = [](int l, int c) { return A32::a_k(l, c); };
  auto const old16 = [](int l, int c) { return 32 * (l / 16) + 16 * c; };
  auto const old32 = [](int l, int c) { return 32 * (l / 32) + 16 * c; };
  EXPECT_LE(one_mfma_relative_error<emu::MfmaScaleF32_16x16x128F8>(atom16), bound);
  EXPECT_LE(one_mfma_relative_error<emu::MfmaScaleF32_32x32x64F8>(atom32), bound);
  EXPECT_GT(one_mfma_relative_error<emu::MfmaScaleF32_16x16x128F8>(old16), 1e3 * bound);
  EXPECT_GT(one_mfma_relative_error<emu::MfmaScaleF32_32x32x64F8>(old32), 1e3 * bound);
}

/// The gfx950 atom with the earlier fragment mapping (32 contiguous K per lane), everything else
/// unchanged: what the library shipped before the fix.
template <int kShape>
struct OldLayoutCdna4Atom : arch::Cdna4MmaFp8<kShape, e4m3fn, e5m2> {
  static constexpr int a_k(int lane, int c) { return 32 * (lane / kShape) + 16 * c; }
  static constexpr int b_k(int lane, int c) { return 32 * (lane / kShape) + 16 * c; }
};

/// Max over C of |C - ref| / (sum |products|) for a whole Mx32 GEMM (M = N = 40, K = 320: ten MX
/// blocks, two full K-tiles and a tail) on the emulator.
template <class Atom>
double mx32_gemm_relative_error() {
  using Config = GemmConfig<TilePolicy<64, 64, 128, 2, 2, Atom, 2>, Mx32, LayoutB::kNK,
                            Epilogue<float, Identity>>;
  constexpr int kM = 40, kN = 40, kK = 320, kBlocks = kK / 32;
  auto const a = unit_magnitude_e4m3(kM * kK, 11);
  std::vector<std::uint8_t> b(kN * kK);
  {  // e5m2, magnitude [1, 2)
    std::mt19937 rng(12);
    std::uniform_real_distribution<float> mag(1.0f, 1.999f);
    for (auto& x : b) x = float_to_fp8<e5m2>((rng() & 1 ? -1.0f : 1.0f) * mag(rng)).bits;
  }
  std::vector<e8m0> sa(kM * kBlocks), sb(kN * kBlocks);
  for (int r = 0; r < kM; ++r)
    for (int q = 0; q < kBlocks; ++q) sa[r * kBlocks + q] = e8m0::from_exponent(mx_exponent(r, q));
  for (int r = 0; r < kN; ++r)
    for (int q = 0; q < kBlocks; ++q)
      sb[r * kBlocks + q] = e8m0::from_exponent(mx_exponent(r + 5, q));
  std::vector<float> c(kM * kN, std::nanf(""));
  typename Gemm<Config>::Arguments args;
  args.problem.m = kM, args.problem.n = kN, args.problem.k = kK;
  args.a = reinterpret_cast<e4m3fn const*>(a.data()), args.lda = kK;
  args.b = reinterpret_cast<e5m2 const*>(b.data()), args.ldb = kK;
  args.scale_a = sa.data(), args.scale_a_count = static_cast<std::int64_t>(sa.size());
  args.scale_b = sb.data(), args.scale_b_count = static_cast<std::int64_t>(sb.size());
  args.epilogue.c = c.data(), args.epilogue.ldc = kN;
  Status const st = Gemm<Config>::run(args);
  EXPECT_TRUE(st.ok()) << st.to_string();
  double worst = 0.0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      double ref = 0.0, mag = 0.0;
      for (int k = 0; k < kK; ++k) {
        double const t = std::ldexp(double(fp8_to_float(e4m3fn::from_bits(a[m * kK + k]))),
                                    mx_exponent(m, k / 32)) *
                         std::ldexp(double(fp8_to_float(e5m2::from_bits(b[n * kK + k]))),
                                    mx_exponent(n + 5, k / 32));
        ref += t, mag += std::fabs(t);
      }
      double const got = c[m * kN + n];
      worst = std::max(worst, std::isfinite(got) ? std::fabs(got - ref) / mag : HUGE_VAL);
    }
  return worst;
}

// Whole GEMM: one FP32 rounding per MFMA accumulation (K / kK of them) plus the output's: the error
// is below (ceil(K/kK) + 1) * 2^-24 of the sum of |products|; the bound used is (ceil(K/kK) + 2) *
// 2^-24.
TEST(MfmaMx32KOrder, GemmFollowsTheIsaLayoutAndTheOldLayoutFails) {
  double const bound16 = (3 + 2) * std::ldexp(1.0, -24);  // ceil(320 / 128) = 3 MFMAs per output
  double const bound32 = (5 + 2) * std::ldexp(1.0, -24);  // 320 / 64 = 5
  using Atom16 = arch::Cdna4Mma16x16x128<e4m3fn, e5m2>;
  using Atom32 = arch::Cdna4Mma32x32x64<e4m3fn, e5m2>;
  EXPECT_LE(mx32_gemm_relative_error<Atom16>(), bound16);
  EXPECT_LE(mx32_gemm_relative_error<Atom32>(), bound32);
  EXPECT_GT(mx32_gemm_relative_error<OldLayoutCdna4Atom<16>>(), 1e3 * bound16);
  EXPECT_GT(mx32_gemm_relative_error<OldLayoutCdna4Atom<32>>(), 1e3 * bound32);
}

}  // namespace
}  // namespace fp8gemm::test
