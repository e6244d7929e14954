// SPDX-License-Identifier: MIT
// The Hopper TMA + WGMMA kernel behind Gemm (H200, label gpu): every format pair, granularity,
// output type and epilogue against FP64 with the derived bound; promotion vs fast accumulation
// at K = 16384, bit for bit against the measured accumulation model; its refusals; the 2-CTA
// multicast policies (suite WgmmaMulticast*), the swapped decode policies (WgmmaSwapAB*) and a
// grid capped below the SM count (WgmmaSmCount).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/sm90_accumulation_model.hpp"
#include "fp8gemm/quant/transpose.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

using Configs = ::testing::Types<
    // promoted (the default accumulation), every granularity the kernel offers
    GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDefault<>, PerChannel, LayoutB::kNK, Epilogue<fp16, GeluTanh>>,
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDefault<e4m3fn, e5m2>, Blockwise<128, 128, 128>, LayoutB::kNK,
               Epilogue<float, GeluErf>>,
    GemmConfig<Sm90WgmmaDefault<e5m2, e4m3fn>, Blockwise<1, 64, 128>, LayoutB::kNK,
               Epilogue<e4m3fn, GeluTanh>>,
    // the five-stage 128 x 128 tile AutoGemm takes for Blockwise (scale ring beside bf16 staging)
    GemmConfig<Sm90WgmmaDefaultBlockwise<>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<bf16, GeluTanh>>,
    // 256 x 128, two m64 row blocks per consumer, one partial-sum set
    GemmConfig<WgmmaTilePolicy<256, 128, 2, 4, e5m2, e5m2>, PerTensor, LayoutB::kNK,
               Epilogue<e5m2, Identity>>,
    GemmConfig<WgmmaTilePolicy<256, 128, 2, 4>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<bf16, GeluErf>>,
    // fast accumulation (GELU-tanh with per-tensor scales through TMA stores, the same staging
    // loop as Identity's; fp32 C and GELU-erf from registers)
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>,
               FastAccumulation>,
    GemmConfig<Sm90WgmmaLarge<e5m2, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>,
               FastAccumulation>,
    // other tile shapes: one consumer; 3 stages; N = 64; N = 192 (two n96 promotion chunks,
    // three 128-byte boxes of C through TMA)
    GemmConfig<WgmmaTilePolicy<128, 128, 1, 3>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<WgmmaTilePolicy<128, 192, 2, 4, e4m3fn, e5m2>, PerChannel, LayoutB::kNK,
               Epilogue<bf16, Identity>>,
    // promotion in chunks of N (two partial-sum sets of a narrower wgmma, kPromoteChunks):
    // Sm90WgmmaLarge (128 x 256) in four n64 chunks (TMA stores, with per-tensor GELU-tanh too;
    // fp32 C and GELU-erf from registers), 128 x 144
    // / 160 / 176 in two n72 / n80 / n88 chunks (192 above is two n96 chunks)
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaLarge<e5m2, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaLarge<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>>,
    GemmConfig<Sm90WgmmaLarge<e5m2, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<fp16, GeluTanh>>,
    GemmConfig<WgmmaTilePolicy<128, 144, 2, 6, e4m3fn, e5m2>, PerChannel, LayoutB::kNK,
               Epilogue<fp16, GeluTanh>>,
    GemmConfig<WgmmaTilePolicy<128, 160, 2, 6>, Blockwise<1, 32, 128>, LayoutB::kNK,
               Epilogue<float, Identity>>,
    GemmConfig<WgmmaTilePolicy<128, 176, 2, 5, e5m2, e5m2>, PerTensor, LayoutB::kNK,
               Epilogue<e4m3fn, Identity>>,
    // two partial-sum sets (kPipelinedPromotion, one m64 row block per consumer: sets alternate
    // over k-blocks; odd and even k-block counts below); then two row blocks per consumer, N = 64
    GemmConfig<Sm90WgmmaMediumM<e4m3fn, e5m2>, Blockwise<1, 64, 128>, LayoutB::kNK,
               Epilogue<fp16, Identity>>,
    // the decode benchmark's config (per-tensor bf16: TMA stores beside its 8-stage ring)
    GemmConfig<Sm90WgmmaMediumM<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<WgmmaTilePolicy<256, 64, 2, 4, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<float, GeluTanh>>,
    // ping-pong: the two consumers alternate tiles (2304 x 2100 gives every CTA several)
    GemmConfig<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<WgmmaTilePolicy<64, 256, 2, 5, e5m2, e4m3fn, WgmmaSchedule::kPingPong>, PerTensor,
               LayoutB::kNK, Epilogue<fp16, GeluErf>, FastAccumulation>,
    // ping-pong, promoted in four n64 chunks per consumer tile (64 x 256)
    GemmConfig<WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e5m2, WgmmaSchedule::kPingPong>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>;

template <class Config>
class WgmmaGemm : public ::testing::Test {};
TYPED_TEST_SUITE(WgmmaGemm, Configs, ConfigName);

/// C's padding past N for case c, by its seed: seed % 3 == 0: ldc = N + 3 (one element per
/// store); 1: an even ldc (pair stores, and the single-element path where N is odd, at the right
/// edge); 2: ldc a multiple of 16 elements, so C's rows are 16-byte aligned for every C type: the
/// TMA-store epilogue where the config has it and N allows it (TmaStoreEpilogue::c_allows_tma;
/// the other two take its fallback).
int ldc_pad_for(GemmCase const& c) {
  int const pads[3] = {3, c.n % 2 ? 1 : 8, (16 - c.n % 16) % 16 + 16};
  return pads[c.seed % 3];
}

/// Case c on Config against FP64 within run_on_gpu's bounds; prints the errors.
template <class Config>
void expect_matches_fp64(GemmCase const& c) {
  GemmProblem<Config> const p(c);
  std::string report;
  EXPECT_TRUE(run_on_gpu(p, &report)) << describe(c) << " ldc " << p.ldc;
  std::cout << "  " << report << "\n";
}

/// Edges in M, N and K (K not a multiple of 16, 32 or 128: the TMA box's zero fill), tiles
/// many times over, several distributions; fresh data per config.
TYPED_TEST(WgmmaGemm, MatchesFp64) {
  std::uint64_t seed = 3000 + std::hash<std::string>{}(Gemm<TypeParam>::name()) % 1000;
  for (GemmCase c :
       {GemmCase{1, 256, 512}, GemmCase{1, 1, 1}, GemmCase{17, 33, 65}, GemmCase{127, 131, 300},
        GemmCase{257, 509, 1000, 0, Distribution::kRowRanges},
        GemmCase{1024, 768, 520, 0, Distribution::kOutliers},
        GemmCase{600, 1100, 2048, 0, Distribution::kUniform, false}, GemmCase{520, 300, 4100},
        // more tiles than the H200's 132 SMs (every policy here): CTAs take several tiles,
        // carrying the ring's stage and phase across them; 6 k-blocks, not a multiple of any
        // policy's stage count
        GemmCase{2304, 2100, 650}}) {
    c.seed = seed++;
    c.ldc_pad = ldc_pad_for(c);
    expect_matches_fp64<TypeParam>(c);
  }
  // The TMA-store path for certain (where the config has it): N a multiple of 16 (whole 16-byte
  // units for every C type), ldc = N + 16; edge tiles in M and N, the last box partly past N.
  for (GemmCase c : {GemmCase{300, 528, 384}, GemmCase{129, 208, 1000}, GemmCase{1, 16, 64}}) {
    c.seed = seed++;
    c.ldc_pad = 16;
    expect_matches_fp64<TypeParam>(c);
  }
}

TYPED_TEST(WgmmaGemm, NanInAPropagatesToItsRowOnly) {
  GemmCase c{300, 150, 333, 77};
  c.nan_at = 41 * 333 + 200;
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_gpu(p));
}

// ---- swapped operands (C^T = B A^T: Sm90WgmmaDecode) ------------------------------------------

// Each decode policy promoted and fast, per-tensor and per-channel, bf16 / fp32 / fp8 (+ amax)
// outputs, GELU, the e4m3 / e5m2 mixes (the wgmma's operand types are swapped: its A is B's), and
// Decode<128>, the bench's M = 128 pick (64 accumulators + two partial-sum sets); Blockwise
// (WgmmaSwappedBlockScales) at 8, 16, 32 and 64 columns, A blocks of 1 and 128 rows, B blocks of
// 64 and 128.
using SwapABConfigs = ::testing::Types<
    GemmConfig<Sm90WgmmaDecode<8>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDecode<8, e4m3fn, e5m2>, PerChannel, LayoutB::kNK,
               Epilogue<e4m3fn, GeluTanh>, FastAccumulation>,
    GemmConfig<Sm90WgmmaDecode<16>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90WgmmaDecode<16, e5m2, e4m3fn>, PerTensor, LayoutB::kNK,
               Epilogue<float, Identity>, FastAccumulation>,
    GemmConfig<Sm90WgmmaDecode<32, e5m2, e4m3fn>, PerTensor, LayoutB::kNK,
               Epilogue<e4m3fn, GeluErf>>,
    GemmConfig<Sm90WgmmaDecode<32>, PerChannel, LayoutB::kNK, Epilogue<float, GeluTanh>,
               FastAccumulation>,
    GemmConfig<Sm90WgmmaDecode<32, e4m3fn, e5m2>, PerChannel, LayoutB::kNK,
               Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDecode<128>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90WgmmaDecode<8>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDecode<16, e5m2, e4m3fn>, Blockwise<1, 64, 128>, LayoutB::kNK,
               Epilogue<e4m3fn, GeluTanh>>,
    GemmConfig<Sm90WgmmaDecode<32, e4m3fn, e5m2>, Blockwise<128, 128, 128>, LayoutB::kNK,
               Epilogue<float, Identity>>,
    GemmConfig<Sm90WgmmaDecode<64>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, GeluErf>>>;

// The wide swapped tiles (BlockMCols 160-256: M = 129-256 in one tile row), promoted in chunks
// of the wgmma N (two or four) and fast.
using SwapABWideConfigs = ::testing::Types<
    GemmConfig<Sm90WgmmaDecode<160>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDecode<192, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90WgmmaDecode<256>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, Identity>>,
    GemmConfig<Sm90WgmmaDecode<256>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>,
               FastAccumulation>>;

template <class Config>
class WgmmaSwapABWide : public ::testing::Test {};
TYPED_TEST_SUITE(WgmmaSwapABWide, SwapABWideConfigs, ConfigName);

/// M below, at and past BlockMCols (129, 160, 192, 200, 256, 300: A's box shorter than the
/// wgmma N, whole, and a second tile row), N and K not multiples of 64 / 128, a long K (40
/// k-blocks: the ring wraps), bias.
TYPED_TEST(WgmmaSwapABWide, MatchesFp64) {
  std::uint64_t seed = 7500 + std::hash<std::string>{}(Gemm<TypeParam>::name()) % 1000;
  std::vector<GemmCase> cases;
  for (int m : {129, 160, 192, 200, 256, 300}) cases.push_back(GemmCase{m, 1000, 1000});
  cases.push_back(GemmCase{200, 700, 5120, 0, Distribution::kRowRanges});
  cases.push_back(GemmCase{131, 130, 129, 0, Distribution::kUniform, false});
  for (GemmCase c : cases) {
    c.seed = seed++;
    c.ldc_pad = ldc_pad_for(c);
    expect_matches_fp64<TypeParam>(c);
  }
}

// The two-consumer swapped tiles (Sm90WgmmaMidM: 128 rows of N per tile, 64 per consumer, the
// wgmma N following M), promoted whole (104: 52 + 2 x 52 registers) or in two chunks (160);
// stored through TMA from transposed staging (bf16; fp16 with per-channel scales; fp32 in two
// 32-column boxes per consumer at 64 columns; N = 130 has rows of 260 B and falls back to
// registers) or from registers (GELU on 80 accumulators, fp8); Blockwise with B's scale block as
// wide as one consumer's rows (each consumer its own B scale).
using MidMConfigs = ::testing::Types<
    GemmConfig<Sm90WgmmaMidM<104>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaMidM<128>, PerChannel, LayoutB::kNK, Epilogue<fp16, Identity>>,
    GemmConfig<Sm90WgmmaMidM<160, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90WgmmaMidM<192>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, Identity>,
               FastAccumulation>,
    GemmConfig<Sm90WgmmaMidM<64>, Blockwise<1, 64, 128>, LayoutB::kNK, Epilogue<float, Identity>>,
    // 2-CTA clusters sharing B's tile (each CTA multicasts one consumer's 64 rows): M = 129-300
    // gives two or three tile rows, three leaving the last pair's second CTA past M
    GemmConfig<Sm90WgmmaMidMMulticastB<104>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaMidMMulticastB<64>, Blockwise<1, 64, 128>, LayoutB::kNK,
               Epilogue<float, Identity>>>;

template <class Config>
class WgmmaMidM : public ::testing::Test {};
TYPED_TEST_SUITE(WgmmaMidM, MidMConfigs, ConfigName);

/// M below, at and past BlockMCols and in several tile rows (96 .. 300), N not a multiple of the
/// tile's 128 rows (the last tile's second consumer reads rows past N; at N = 130 all of them),
/// K not a multiple of 128, a long K (40 k-blocks: the ring wraps), bias.
TYPED_TEST(WgmmaMidM, MatchesFp64) {
  std::uint64_t seed = 7700 + std::hash<std::string>{}(Gemm<TypeParam>::name()) % 1000;
  std::vector<GemmCase> cases;
  for (int m : {96, 129, 160, 200, 256, 300}) cases.push_back(GemmCase{m, 1000, 1000});
  cases.push_back(GemmCase{200, 700, 5120, 0, Distribution::kRowRanges});
  cases.push_back(GemmCase{131, 130, 129, 0, Distribution::kUniform, false});
  cases.push_back(GemmCase{64, 9000, 300, 0, Distribution::kOutliers});
  for (GemmCase c : cases) {
    c.seed = seed++;
    c.ldc_pad = ldc_pad_for(c);
    expect_matches_fp64<TypeParam>(c);
  }
  // The TMA-store path for certain where the config has it (ldc = N + 16, N a multiple of 16):
  // edge tiles in M and N, the last consumer's columns partly and wholly past N.
  for (GemmCase c : {GemmCase{300, 528, 384}, GemmCase{200, 208, 1000}, GemmCase{104, 16, 64}}) {
    c.seed = seed++;
    c.ldc_pad = 16;
    expect_matches_fp64<TypeParam>(c);
  }
}

template <class Config>
class WgmmaSwapAB : public ::testing::Test {};
TYPED_TEST_SUITE(WgmmaSwapAB, SwapABConfigs, ConfigName);

/// M in {1, 5, 8, 16, 17, 32, 33, 100} (below, at and past BlockMCols: A's box shorter than the
/// wgmma N, M tails), N and K not multiples of 64 / 128, bias; K < 128; a long K that wraps the
/// ring (33 k-blocks > every stage count); more tiles than SMs (CTAs carry the ring across
/// tiles). ldc as in MatchesFp64 (ldc_pad_for; pairs are never used here: transposed map).
TYPED_TEST(WgmmaSwapAB, MatchesFp64) {
  std::uint64_t seed = 7000 + std::hash<std::string>{}(Gemm<TypeParam>::name()) % 1000;
  std::vector<GemmCase> cases;
  for (int m : {1, 5, 8, 16, 17, 32, 33, 100}) cases.push_back(GemmCase{m, 1000, 1000});
  cases.push_back(GemmCase{3, 200, 65});
  cases.push_back(GemmCase{16, 700, 4200, 0, Distribution::kRowRanges});
  cases.push_back(GemmCase{100, 9000, 300, 0, Distribution::kOutliers});
  cases.push_back(GemmCase{9, 130, 129, 0, Distribution::kUniform, false});
  for (GemmCase c : cases) {
    c.seed = seed++;
    c.ldc_pad = ldc_pad_for(c);
    expect_matches_fp64<TypeParam>(c);
  }
}

/// A NaN in row 5 of A reaches row 5 of C only: through the transposed map it is accumulator
/// column 5 of every thread that holds it, and it must not leak into the other columns (rows).
TYPED_TEST(WgmmaSwapAB, NanInAPropagatesToItsRowOnly) {
  GemmCase c{17, 150, 333, 91};
  c.nan_at = 5 * 333 + 200;
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_gpu(p));
}

/// Split-K 2 and 3 on the swapped policies (store_partial through the transposed map), each
/// deterministic, within the bound of FP64 and of the unsplit run; fp8 output + amax through the
/// reduction kernel; promoted and fast.
TEST(WgmmaSwapABSplitK, DeterministicAndMatchesUnsplit) {
  using D8 = GemmConfig<Sm90WgmmaDecode<8>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using D16Fp8 =
      GemmConfig<Sm90WgmmaDecode<16>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>;
  using D32Fast = GemmConfig<Sm90WgmmaDecode<32, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
                             Epilogue<float, Identity>, FastAccumulation>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  GemmCase a{1, 1000, 3000, seed++};
  a.split_k = 2;
  EXPECT_TRUE(split_k_consistent<D8>(a, run_on_gpu<D8>));
  GemmCase b{17, 520, 1300, seed++};
  b.split_k = 3;
  EXPECT_TRUE(split_k_consistent<D16Fp8>(b, run_on_gpu<D16Fp8>));
  GemmCase c{33, 300, 700, seed++};
  c.split_k = 3;
  EXPECT_TRUE(split_k_consistent<D32Fast>(c, run_on_gpu<D32Fast>));
  GemmCase d{5, 4100, 8192, seed++};
  d.split_k = 2;
  EXPECT_TRUE(split_k_consistent<D8>(d, run_on_gpu<D8>));
}

/// Split-K 2 and 3 on the two-consumer swapped tiles (each consumer's partials through the
/// transposed map at its own 64 rows of N): deterministic, within the bound of FP64 and of the
/// unsplit run.
TEST(WgmmaMidMSplitK, DeterministicAndMatchesUnsplit) {
  using M104 = GemmConfig<Sm90WgmmaMidM<104>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using M160Fp8 =
      GemmConfig<Sm90WgmmaMidM<160>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  GemmCase a{200, 1000, 3000, seed++};
  a.split_k = 2;
  EXPECT_TRUE(split_k_consistent<M104>(a, run_on_gpu<M104>));
  GemmCase b{150, 520, 1300, seed++};
  b.split_k = 3;
  EXPECT_TRUE(split_k_consistent<M160Fp8>(b, run_on_gpu<M160Fp8>));
}

/// Whole's config with StreamK<its policy>.
template <class Whole>
using StreamKOf =
    GemmConfig<StreamK<typename Whole::Policy>, typename Whole::Granularity, Whole::kLayoutB,
               typename Whole::Epilogue, PromoteEvery<Whole::kPromoteK>>;

/// StreamK<P> on case c: against FP64 (run_on_gpu), twice the same bits, and within the bound of
/// P's uncut run (the sum of both runs' bounds, as split_k_consistent).
template <class Whole>
::testing::AssertionResult stream_k_consistent(GemmCase const& c) {
  using Cut = StreamKOf<Whole>;
  using ElementC = typename Whole::ElementC;
  GemmProblem<Cut> const cut(c);
  GemmProblem<Whole> const whole(c);  // the same inputs (same seed)
  std::vector<ElementC> first, second, uncut;
  if (auto r = run_on_gpu(cut, nullptr, &first); !r) return r << " (" << Gemm<Cut>::name() << ")";
  if (auto r = run_on_gpu(cut, nullptr, &second); !r) return r;
  if (auto r = run_on_gpu(whole, nullptr, &uncut); !r) return r;
  if (std::memcmp(first.data(), second.data(), first.size() * sizeof(ElementC)) != 0)
    return ::testing::AssertionFailure() << describe(c) << ": stream-K is not deterministic";
  std::vector<double> bound(cut.bound.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = cut.bound[i] + whole.bound[i];
  return all_within_bound(cut.values(first), whole.values(uncut), bound, c.m, c.n);
}

/// StreamK<P>: the tiles' k-blocks cut evenly over the CTAs, a tile cut between CTAs summed
/// through the workspace's slots (poisoned here, flags included: run() zeroes the flags where a
/// tile is cut). Tiles
/// fewer than the SMs (every tile cut), more than the SMs with a partial last wave (2304 x 2000:
/// 288 tiles on 132 SMs, the first wave whole, 156 cut; 300 x 2000 on 7 CTAs: 35 whole, 13
/// cut; 300 x 1792 on 7: 42 whole, none cut, and the flags then not zeroed), K of one and
/// two k-blocks, a CTA count forced low (sm_count 7: long walks over several tiles), fp8 C with
/// amax; cooperative WGMMA tiles straight and swapped, promoted whole or in four chunks,
/// Blockwise. Column groups (the tile rows of a column cut alike, fixups every R-th slot): 2, 3
/// and 4 tile rows on 132 SMs, all cut or (256 x 17100: 268 tiles, 132 whole) after a whole
/// wave; 3 rows on 7 CTAs are cut tile by tile; AutoGemm's Blockwise form.
TEST(WgmmaStreamK, DeterministicAndMatchesUncut) {
  using Default = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using MidM = GemmConfig<Sm90WgmmaMidM<104>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Decode = GemmConfig<Sm90WgmmaDecode<16>, PerChannel, LayoutB::kNK, Epilogue<float>>;
  using Large = GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Block = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                           Epilogue<fp16, Identity>>;
  using Fp8 = GemmConfig<Sm90WgmmaDefault<>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  for (GemmCase c : {GemmCase{300, 2000, 3000}, GemmCase{256, 1000, 129}, GemmCase{200, 4100, 1000},
                     GemmCase{2304, 2000, 1000}}) {
    c.seed = seed++;
    EXPECT_TRUE(stream_k_consistent<Default>(c));
  }
  GemmCase few{300, 2000, 3000, seed++};
  few.sm_count = 7;
  EXPECT_TRUE(stream_k_consistent<Default>(few));
  // whole waves only (42 tiles on 7 CTAs): nothing cut, the poisoned flags never zeroed nor read
  GemmCase whole{300, 1792, 1000, seed++};
  whole.sm_count = 7;
  EXPECT_TRUE(stream_k_consistent<Default>(whole));
  EXPECT_TRUE(stream_k_consistent<MidM>(GemmCase{200, 3000, 2048, seed++}));
  EXPECT_TRUE(stream_k_consistent<MidM>(GemmCase{130, 520, 1300, seed++}));
  EXPECT_TRUE(stream_k_consistent<Decode>(GemmCase{16, 2000, 4096, seed++}));
  EXPECT_TRUE(stream_k_consistent<Decode>(GemmCase{5, 300, 128, seed++}));
  EXPECT_TRUE(stream_k_consistent<Large>(GemmCase{512, 3072, 2048, seed++}));
  EXPECT_TRUE(stream_k_consistent<Large>(GemmCase{200, 6200, 1000, seed++}));
  EXPECT_TRUE(stream_k_consistent<Default>(GemmCase{256, 17100, 256, seed++}));
  EXPECT_TRUE(stream_k_consistent<Block>(GemmCase{300, 1024, 2048, seed++}));
  EXPECT_TRUE(stream_k_consistent<Fp8>(GemmCase{200, 1000, 1500, seed++}));
  // AutoGemm's Blockwise stream-K form (the five-stage tile, bf16 C): 4 tile rows cut in column
  // groups (its K-block-major A scales through the ring: WgmmaScaleLayout)
  using Block5 = GemmConfig<Sm90WgmmaDefaultBlockwise<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                            Epilogue<bf16, Identity>>;
  EXPECT_TRUE(stream_k_consistent<Block5>(GemmCase{512, 2600, 1500, seed++}));
  // K blocks a power of two apart (kKRanges): a segment promoting with another k-block's scales
  // is off by 2x or more, where normal data's scales differ by tens of percent
  EXPECT_TRUE(
      stream_k_consistent<Block5>(GemmCase{512, 2600, 1500, seed++, Distribution::kKRanges}));
  EXPECT_TRUE(
      stream_k_consistent<Block>(GemmCase{300, 1024, 2048, seed++, Distribution::kKRanges}));
}

/// The clustered two-consumer tiles (Sm90WgmmaMidMMulticastB) compute each tile as the
/// unclustered ones do, only B's tile arrives in two multicast halves: the same bits, for one,
/// two and three tile rows (the last pair's second CTA past M), N past a tile, split-K 2.
TEST(WgmmaMidMMulticast, SameBitsAsUnclustered) {
  using Plain = GemmConfig<Sm90WgmmaMidM<80>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Pair =
      GemmConfig<Sm90WgmmaMidMMulticastB<80>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  for (GemmCase c : {GemmCase{70, 1000, 1000}, GemmCase{160, 4100, 2048}, GemmCase{230, 300, 4096},
                     GemmCase{200, 2000, 3000}}) {
    c.seed = seed++;
    if (c.m == 200) c.split_k = 2;
    GemmProblem<Plain> const p(c);
    GemmProblem<Pair> const q(c);  // the same seed: the same operands and scales
    ASSERT_TRUE(p.a_q.size() == q.a_q.size() && p.b_q.size() == q.b_q.size() &&
                std::memcmp(p.a_q.data(), q.a_q.data(), p.a_q.size()) == 0 &&
                std::memcmp(p.b_q.data(), q.b_q.data(), p.b_q.size()) == 0)
        << "the two problems differ";
    std::vector<bf16> plain, pair;
    EXPECT_TRUE(run_on_gpu(p, nullptr, &plain));
    EXPECT_TRUE(run_on_gpu(q, nullptr, &pair));
    ASSERT_EQ(plain.size(), pair.size());
    EXPECT_EQ(std::memcmp(plain.data(), pair.data(), plain.size() * sizeof(bf16)), 0)
        << describe(c) << ": " << Gemm<Pair>::name() << " differs from " << Gemm<Plain>::name();
  }
}

/// Blockwise on the swapped tiles against the 64 x 64 tile (Sm90WgmmaSmallM, which Blockwise
/// decode runs on otherwise): the same bits where every product s_a·s_b is normal (the generated
/// scales' are), since both promote fma(partial, s_a·s_b, acc) per 128-K block on the same tensor
/// core sums; with A's scales row-major and K-block-major (ld past M, NaN between the rows), M
/// below, at and past the tile's columns, N past a 64-row tile, several k-blocks.
TEST(WgmmaSwapABBlockwise, SameBitsAsSmallM) {
  using Bw = Blockwise<1, 128, 128>;
  using Small = GemmConfig<Sm90WgmmaSmallM<>, Bw, LayoutB::kNK, Epilogue<bf16, Identity>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  auto same_bits = [](auto config, GemmCase c, std::int64_t ld) -> ::testing::AssertionResult {
    using Config = decltype(config);
    GemmProblem<Config> const p(c);
    GemmProblem<Small> const q(c);  // the same seed: the same operands and scales
    if (p.a_q.size() != q.a_q.size() ||
        std::memcmp(p.a_q.data(), q.a_q.data(), p.a_q.size()) != 0 || p.sa_f != q.sa_f ||
        p.sb_f != q.sb_f)
      return ::testing::AssertionFailure() << "the two problems differ";
    std::vector<bf16> swapped, small;
    std::string report;
    if (auto r = run_on_gpu_with(p, &report, &swapped, ld); !r) return r << report;
    if (auto r = run_on_gpu(q, nullptr, &small); !r) return r;
    if (std::memcmp(swapped.data(), small.data(), small.size() * sizeof(bf16)) != 0)
      return ::testing::AssertionFailure()
             << describe(c) << " ld " << ld << ": differs from " << Gemm<Small>::name();
    return ::testing::AssertionSuccess();
  };
  using D8 = GemmConfig<Sm90WgmmaDecode<8>, Bw, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using D16 = GemmConfig<Sm90WgmmaDecode<16>, Bw, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using D64 = GemmConfig<Sm90WgmmaDecode<64>, Bw, LayoutB::kNK, Epilogue<bf16, Identity>>;
  EXPECT_TRUE(same_bits(D8{}, GemmCase{1, 1000, 2048, seed++}, 0));
  EXPECT_TRUE(same_bits(D8{}, GemmCase{5, 520, 1300, seed++}, 5 + 3));
  EXPECT_TRUE(same_bits(D16{}, GemmCase{16, 4100, 1024, seed++}, 0));
  EXPECT_TRUE(same_bits(D16{}, GemmCase{33, 700, 2000, seed++}, 40));  // three tile columns
  EXPECT_TRUE(same_bits(D64{}, GemmCase{64, 1000, 600, seed++}, 64));
  EXPECT_TRUE(same_bits(D64{}, GemmCase{100, 300, 4096, seed++}, 0));
}

// ---- promotion vs fast accumulation at K = 16384 ---------------------------------------------

using Promoted = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
using Fast =
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<float>, FastAccumulation>;

/// Output (m, n)'s K products a_k·b_k in K order, with their operand exponent sums
/// (tests/common/sm90_accumulation_model.hpp).
std::vector<Sm90Product> chain_products(GemmProblem<Promoted> const& p, int m, int n) {
  std::vector<Sm90Product> products(static_cast<std::size_t>(p.cs.k));
  for (int kk = 0; kk < p.cs.k; ++kk) {
    double const a = fp8_to_float(p.a_q[static_cast<std::size_t>(m * p.lda + kk)]);
    double const b = fp8_to_float(p.b_q[static_cast<std::size_t>(n * p.ldb + kk)]);
    Sm90Product& pr = products[static_cast<std::size_t>(kk)];
    pr.value = a * b;
    if (pr.value != 0.0) pr.exponent = fp8_operand_exponent(a, -6) + fp8_operand_exponent(b, -6);
  }
  return products;
}

/// The FP32 value the kernel leaves for one output before the epilogue, from the measured model:
/// fast = one wgmma chain over all K; promoted = a chain per 128-K block, each added to an FP32
/// accumulator in K order.
float modeled_accumulator(std::vector<Sm90Product> const& products, bool promoted) {
  if (!promoted) return sm90_wgmma_accumulate(products);
  float acc = 0.0f;
  for (std::size_t k0 = 0; k0 < products.size(); k0 += 128) {
    std::size_t const k1 = std::min(products.size(), k0 + 128);
    acc += sm90_wgmma_accumulate(
        std::vector<Sm90Product>(products.begin() + k0, products.begin() + k1));
  }
  return acc;
}

/// Runs one config on the bytes of `p` (a Promoted problem: same A, B, scales), returns C.
template <class Config>
::testing::AssertionResult run_same_bytes(GemmProblem<Promoted> const& p, std::vector<float>& c) {
  DeviceBuffer a, b, sa, sb, cbuf;
  FP8GEMM_TEST_CUDA(upload(a, p.a_q));
  FP8GEMM_TEST_CUDA(upload(b, p.b_q));
  FP8GEMM_TEST_CUDA(upload(sa, p.sa_f));
  FP8GEMM_TEST_CUDA(upload(sb, p.sb_f));
  FP8GEMM_TEST_CUDA(cbuf.allocate(p.c_size() * sizeof(float)));
  FP8GEMM_TEST_CUDA(poison_device(cbuf.as<float>(), p.c_size()));
  typename Gemm<Config>::Arguments args;
  args.problem.m = p.cs.m, args.problem.n = p.cs.n, args.problem.k = p.cs.k;
  args.a = a.as<e4m3fn>(), args.lda = p.lda;
  args.b = b.as<e4m3fn>(), args.ldb = p.ldb;
  args.scale_a = sa.as<float>(), args.scale_a_count = 1;
  args.scale_b = sb.as<float>(), args.scale_b_count = 1;
  args.epilogue.c = cbuf.as<float>(), args.epilogue.ldc = p.ldc;
  Status const st = Gemm<Config>::run(args);
  if (!st.ok()) return ::testing::AssertionFailure() << st.to_string();
  FP8GEMM_TEST_CUDA(cudaDeviceSynchronize());
  c.resize(p.c_size());
  FP8GEMM_TEST_CUDA(download(c, cbuf));
  return ::testing::AssertionSuccess();
}

/// At K = 16384 the tensor core's 14-bit truncating accumulation loses ~K/32 x 2^-13 of the
/// products' magnitude over one chain; promotion every 128 K bounds that to one block's worth.
///   promoted, per element: |C - C_64| <= (gamma_{128+8}(2^-13) + gamma_{K/128+4}(2^-24))
///     x s_a s_b sum_k |a_k b_k|  (per 128-K chunk: 32 cut products per k-step, the cut D and
///     sum, 4 k-steps, each cut below 2^-13 of the chunk's magnitude; then K/128 FP32 adds and
///     the two scale multiplies), plus the FP32 output's rounding;
///   fast: the a-priori bound is vacuous (K x 2^-13 = 2), so on 256 sampled outputs the chain's
///     own bound (sm90_wgmma_error_bound: per k-step, a unit 2^(E-13) per cut term and one for the
///     sum's cut, along the modeled D), |C - C_64| <= s_a s_b bound (1 + gamma_2) + gamma_2 |C_64|
///     (the FP32 output's two scale multiplies);
///   its normwise error must be clearly larger: 16x the promoted one (24.1-24.6x measured on the
///     H200 over 17 runs, tests/results/h200).
/// Both are also checked bit for bit, on the same sampled outputs, against the model.
TEST(WgmmaAccumulation, PromotionBeatsFastAtK16384AndBothMatchTheModel) {
  GemmCase c{256, 256, 16384, 4242, Distribution::kNormal, false};
  c.seed = std::random_device{}();
  std::cout << "  seed " << c.seed << "\n";  // to reproduce a failure of the bit-exact check
  GemmProblem<Promoted> const p(c);
  std::vector<float> promoted, fast;
  ASSERT_TRUE(run_same_bytes<Promoted>(p, promoted));
  ASSERT_TRUE(run_same_bytes<Fast>(p, fast));
  double const rel =
      gamma_n(128 + 8, 1.0 / (1 << 13)) + gamma_n(c.k / 128 + 4) + 2 * kFp32UnitRoundoff;
  double worst_ratio = 0, err2_p = 0, err2_f = 0, ref2 = 0;
  for (int m = 0; m < c.m; ++m) {
    for (int n = 0; n < c.n; ++n) {
      std::size_t const i = static_cast<std::size_t>(m * c.n + n);
      double const ref = p.ref.c[i], abs_sum = p.ref.abs_c[i];  // dequantized: scales included
      double const ep = promoted[static_cast<std::size_t>(m * p.ldc + n)] - ref;
      double const ef = fast[static_cast<std::size_t>(m * p.ldc + n)] - ref;
      worst_ratio = std::max(worst_ratio, std::fabs(ep) / (rel * abs_sum + 1e-300));
      err2_p += ep * ep, err2_f += ef * ef, ref2 += ref * ref;
    }
  }
  double const norm_p = std::sqrt(err2_p / ref2), norm_f = std::sqrt(err2_f / ref2);
  std::cout << "  K=16384 normwise error vs FP64: promoted " << norm_p << ", fast " << norm_f
            << "; promoted worst error / bound " << worst_ratio << " (bound " << rel
            << " x sum|ab|)\n";
  EXPECT_LE(worst_ratio, 1.0);
  EXPECT_LT(16 * norm_p, norm_f) << "promotion should cut the error well below the fast path's";

  std::mt19937 rng(static_cast<unsigned>(c.seed));
  int mismatches_p = 0, mismatches_f = 0;
  double worst_fast_ratio = 0;
  double const s_ab = double(p.sa_f[0]) * p.sb_f[0], gamma2 = gamma_n(2);
  constexpr int kSamples = 256;
  for (int sample = 0; sample < kSamples; ++sample) {
    int const m = sample < 2 ? (sample == 0 ? 0 : c.m - 1) : static_cast<int>(rng() % c.m);
    int const n = sample < 2 ? (sample == 0 ? 0 : c.n - 1) : static_cast<int>(rng() % c.n);
    std::size_t const i = static_cast<std::size_t>(m * p.ldc + n);
    std::vector<Sm90Product> const products = chain_products(p, m, n);
    float const want_p = scale_twice(modeled_accumulator(products, true), p.sa_f[0], p.sb_f[0]);
    float const want_f = scale_twice(modeled_accumulator(products, false), p.sa_f[0], p.sb_f[0]);
    mismatches_p += promoted[i] != want_p;
    mismatches_f += fast[i] != want_f;
    double const ref = p.ref.c[static_cast<std::size_t>(m * c.n + n)];
    double const bound_f =
        s_ab * sm90_wgmma_error_bound(products) * (1 + gamma2) + gamma2 * std::fabs(ref);
    worst_fast_ratio = std::max(worst_fast_ratio, std::fabs(fast[i] - ref) / bound_f);
  }
  std::cout << "  fast: worst error / its chain's bound " << worst_fast_ratio << " (" << kSamples
            << " sampled outputs)\n";
  EXPECT_LE(worst_fast_ratio, 1.0) << "a fast output outside its chain's bound";
  EXPECT_EQ(mismatches_p, 0) << "promoted outputs differing from the model, of " << kSamples;
  EXPECT_EQ(mismatches_f, 0) << "fast outputs differing from the model, of " << kSamples;
}

// ---- the K-block scales' warp vote, on one warp -----------------------------------------------

/// BlockScales (Sm90WgmmaDefault, Blockwise<1, 128, 128>: one m64 row block, one B group) of the
/// chunked loop, run by one warp: lane t's two row scales, its B scale, its 64 partial sums and
/// accumulators come from the arrays; promote() writes the accumulators back.
using VoteScales = TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, 128>::BlockScales;
constexpr int kVoteRegs = Sm90WgmmaDefault<>::Atom::kAccumulators;
__global__ void promote_on_one_warp(float const* sa, float const* sb, float const* partial,
                                    float* acc) {
  int const t = static_cast<int>(threadIdx.x);
  VoteScales s;
  s.sa[0][0] = sa[2 * t], s.sa[0][1] = sa[2 * t + 1], s.sb[0] = sb[t];
  float part[kVoteRegs], a[kVoteRegs];
  for (int r = 0; r < kVoteRegs; ++r)
    part[r] = partial[t * kVoteRegs + r], a[r] = acc[t * kVoteRegs + r];
  s.promote(a, part, 0);
  for (int r = 0; r < kVoteRegs; ++r) acc[t * kVoteRegs + r] = a[r];
}

/// The rule on the GPU, where 32 lanes vote (the host test has one lane): when every lane's
/// products s_a·s_b are normal, acc = fma(partial, s_a·s_b, acc) bit for bit; when one lane's is
/// not (2^-100 · 2^-60 = 0 in FP32, or 2^100 · 2^50 = inf), every lane of the warp takes
/// fma(partial·s_a, s_b, acc), bit for bit. Random mantissas make the forms tell apart: in each
/// case some outputs differ between the folded and the two-step form, and in the two-step cases
/// some between the fused and an unfused (partial·s_a)·s_b + acc, so a lane taking the wrong form
/// shows. The odd lane (acc = 0 there) gets the representable result: 2^100 · 2^-160 = 2^-60,
/// 2^-100 · 2^150 = 2^50, where folding would give 0 or inf.
TEST(WgmmaBlockScalesVote, OneLaneOutsideFp32SendsTheWholeWarpToTheTwoStepForm) {
  constexpr int kLanes = 32, kN = kLanes * kVoteRegs;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  struct Case {
    char const* what;
    int lane;         // -1: every product normal
    float sa, sb, x;  // the odd lane's row-0 A scale, B scale and row-0 partial sums
  };
  Case const cases[] = {{"all normal", -1, 0, 0, 0},
                        {"2^-100 * 2^-60 underflows", 7, std::ldexp(1.0f, -100),
                         std::ldexp(1.0f, -60), std::ldexp(1.0f, 100)},
                        {"2^100 * 2^50 overflows", 30, std::ldexp(1.0f, 100), std::ldexp(1.0f, 50),
                         std::ldexp(1.0f, -100)}};
  for (Case const& c : cases) {
    std::vector<float> sa(2 * kLanes), sb(kLanes), partial(kN), acc(kN);
    for (auto& v : sa) v = mantissa(rng) * 0.25f;
    for (auto& v : sb) v = mantissa(rng) * 0.5f;
    for (auto& v : partial) v = mantissa(rng) * (rng() % 2 ? 8.0f : -8.0f);
    for (auto& v : acc) v = mantissa(rng) * (rng() % 2 ? 4.0f : -4.0f);
    if (c.lane >= 0) {
      sa[2 * c.lane] = c.sa, sb[c.lane] = c.sb;
      for (int r = 0; r < kVoteRegs; ++r) {
        if ((r / 2) % 2 == 0) partial[c.lane * kVoteRegs + r] = c.x;  // row 0's registers
        acc[c.lane * kVoteRegs + r] = 0.0f;
      }
    }
    DeviceBuffer dsa, dsb, dp, dacc;
    ASSERT_EQ(upload(dsa, sa), cudaSuccess);
    ASSERT_EQ(upload(dsb, sb), cudaSuccess);
    ASSERT_EQ(upload(dp, partial), cudaSuccess);
    ASSERT_EQ(upload(dacc, acc), cudaSuccess);
    promote_on_one_warp<<<1, kLanes>>>(dsa.as<float>(), dsb.as<float>(), dp.as<float>(),
                                       dacc.as<float>());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<float> got(kN);
    ASSERT_EQ(download(got, dacc), cudaSuccess);
    int wrong = 0, folded_differs = 0, fused_differs = 0;
    for (int t = 0; t < kLanes; ++t) {
      for (int r = 0; r < kVoteRegs; ++r) {
        int const i = t * kVoteRegs + r;
        float const s_a = sa[2 * t + (r / 2) % 2], s_b = sb[t];
        float const folded = std::fma(partial[i], s_a * s_b, acc[i]);
        float const step = partial[i] * s_a;
        float const two_step = std::fma(step, s_b, acc[i]);
        float const volatile product = step * s_b;  // rounded on its own: the unfused form
        float const unfused = product + acc[i];
        float const want = c.lane < 0 ? folded : two_step;
        wrong += got[i] != want;
        if (t == c.lane) continue;
        folded_differs += folded != two_step;
        fused_differs += two_step != unfused;
      }
    }
    EXPECT_EQ(wrong, 0) << c.what << ": outputs off the rule, of " << kN;
    EXPECT_GT(folded_differs, 0) << c.what << ": no output where folding would show";
    if (c.lane >= 0) {
      EXPECT_GT(fused_differs, 0) << c.what << ": no output where fusing would show";
      float const odd = got[c.lane * kVoteRegs];  // register 0: row 0
      EXPECT_EQ(odd, c.sb) << c.what;             // x · s_a = 1 exactly; folded: 0 or inf
    }
  }
}

// ---- split-K (decode: fewer tiles than SMs) ----------------------------------------------------

// Each split run within the derived bound of FP64, bit-identical from run to run (partials
// reduced in split order), and as close to the unsplit run as the two bounds allow. Splits of
// 8/8/8 K tiles, 3/3/3/2 (K-blocked scales applied per split), and 2/2/1/0 (an empty split adds
// zeros); FP8 output with amax through the reduction kernel; the chunked Blockwise loop per split.
TEST(WgmmaSplitK, DeterministicAndMatchesUnsplit) {
  using SmallM = GemmConfig<Sm90WgmmaSmallM<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Block = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                           Epilogue<float, Identity>>;
  using Fp8Out =
      GemmConfig<Sm90WgmmaSmallM<>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  GemmCase a{16, 1000, 3000, seed++};
  a.split_k = 3;
  EXPECT_TRUE(split_k_consistent<SmallM>(a, run_on_gpu<SmallM>));
  GemmCase b{300, 260, 1300, seed++};
  b.split_k = 4;
  EXPECT_TRUE(split_k_consistent<Block>(b, run_on_gpu<Block>));
  GemmCase c{70, 200, 600, seed++};
  c.split_k = 4;
  EXPECT_TRUE(split_k_consistent<Fp8Out>(c, run_on_gpu<Fp8Out>));
  // ping-pong with 288 work items over 132 SMs, K tiles 2/2/1/0: the consumers alternate split
  // items, and the one that skips an empty split's item does not move in the ring
  using PingPong =
      GemmConfig<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
                 PerTensor, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase d{1100, 1000, 600, seed++};
  d.split_k = 4;
  EXPECT_TRUE(split_k_consistent<PingPong>(d, run_on_gpu<PingPong>));
  // promotion in four n64 chunks with Blockwise scales loaded a k-block ahead (Sm90WgmmaLarge),
  // 11 K tiles in 3 splits: K ranges that start past k-block 0, of even and odd length
  using LargeBlock =
      GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase e{300, 600, 1300, seed++};
  e.split_k = 3;
  EXPECT_TRUE(split_k_consistent<LargeBlock>(e, run_on_gpu<LargeBlock>));
}

// ---- sm_count: fewer CTAs than SMs --------------------------------------------------------------

// The persistent grid capped at 1, 5 and 13 SMs: each CTA walks many tiles (of 9 x 8 tiles; a
// split-K and a blockwise case too), each run within the bound of FP64 and bit-identical to the
// run on every SM (a tile's sums do not depend on which CTA computes it).
TEST(WgmmaSmCount, FewerSmsGiveTheSameBits) {
  using Plain = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Block = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                           Epilogue<float, GeluTanh>>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  auto same_bits = [](auto config, GemmCase c, int sms) -> ::testing::AssertionResult {
    using Config = decltype(config);
    using ElementC = typename Config::ElementC;
    GemmCase capped = c;
    capped.sm_count = sms;
    std::vector<ElementC> all, few;
    if (auto r = run_on_gpu(GemmProblem<Config>(c), nullptr, &all); !r) return r;
    if (auto r = run_on_gpu(GemmProblem<Config>(capped), nullptr, &few); !r) return r;
    if (std::memcmp(all.data(), few.data(), all.size() * sizeof(ElementC)) != 0)
      return ::testing::AssertionFailure() << describe(capped) << ": differs from every SM";
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(same_bits(Plain{}, GemmCase{1100, 1000, 600, seed++}, 1));
  EXPECT_TRUE(same_bits(Plain{}, GemmCase{1100, 1000, 600, seed++}, 13));
  GemmCase split{300, 1000, 1300, seed++};
  split.split_k = 3;
  EXPECT_TRUE(same_bits(Plain{}, split, 5));
  EXPECT_TRUE(same_bits(Block{}, GemmCase{700, 650, 2000, seed++}, 5));
}

/// The scale ring under 2-CTA clusters (TMA multicast of A or B): the five-stage 128 x 128 tile
/// sharing A, the 128 x 256 one sharing B.
using RingMulticastA =
    GemmConfig<WgmmaTilePolicy<128, 128, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               ::fp8gemm::WgmmaMulticast::kA>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;
using RingMulticastB =
    GemmConfig<WgmmaTilePolicy<128, 256, 2, 3, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               ::fp8gemm::WgmmaMulticast::kB>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;
/// 256 x 128 (two m64 row blocks per consumer, one partial-sum set: multiply_row_blocks; A's
/// scales in two copies of 128 rows + 4), alone and in clusters of two along N (A multicast)
using Ring256 = GemmConfig<WgmmaTilePolicy<256, 128, 2, 4>, Blockwise<1, 128, 128>, LayoutB::kNK,
                           Epilogue<bf16, Identity>>;
using Ring256MulticastA =
    GemmConfig<WgmmaTilePolicy<256, 128, 2, 4, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               ::fp8gemm::WgmmaMulticast::kA>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;

/// Blockwise A scales K-block-major (Gemm::Arguments::scale_a_ld, torch's column-major (M, K/128)
/// with a leading dimension past M, NaN between the rows): the same bits as row-major, on the
/// 128 x 128 and 128 x 256 tiles. K-block-major scales go through the scale ring (the producer
/// copies them beside each stage; WgmmaScaleLayout.RingTakenWhereTheLayoutAllows), row-major
/// ones are loaded by the consumers: this compares the two loops.
TEST(WgmmaScaleLayout, KBlockMajorAGivesTheSameBits) {
  // (fp32 C: Sm90WgmmaDefault with bf16 C keeps its TMA stores instead of the ring)
  using Default = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                             Epilogue<float, Identity>>;
  using Large =
      GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
  using SmallM =
      GemmConfig<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using MediumM = GemmConfig<Sm90WgmmaMediumM<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                             Epilogue<bf16, Identity>>;
  using Default5 = GemmConfig<Sm90WgmmaDefaultBlockwise<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                              Epilogue<bf16, Identity>>;
  static_assert(Default::Mainloop::kScaleRing && Large::Mainloop::kScaleRing &&
                SmallM::Mainloop::kScaleRing && MediumM::Mainloop::kScaleRing &&
                Default5::Mainloop::kScaleRing && RingMulticastA::Mainloop::kScaleRing &&
                RingMulticastB::Mainloop::kScaleRing);
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  auto same_bits = [](auto config, GemmCase c) -> ::testing::AssertionResult {
    using Config = decltype(config);
    using ElementC = typename Config::ElementC;
    GemmProblem<Config> const p(c);
    std::vector<ElementC> row, kb;
    std::string report;
    if (auto r = run_on_gpu(p, nullptr, &row); !r) return r;
    if (auto r = run_on_gpu_with(p, &report, &kb, std::int64_t{c.m} + 5); !r) return r << report;
    if (std::memcmp(row.data(), kb.data(), row.size() * sizeof(ElementC)) != 0)
      return ::testing::AssertionFailure() << describe(c) << ": differs from row-major scales";
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(same_bits(Default{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(Large{}, GemmCase{700, 650, 2000, seed++}));
  EXPECT_TRUE(same_bits(Large{}, GemmCase{300, 600, 1300, seed++}));    // 2nd B group past N
  EXPECT_TRUE(same_bits(Default{}, GemmCase{200, 136, 4096, seed++}));  // tail box, ring
  EXPECT_TRUE(same_bits(Default{}, GemmCase{1, 256, 1024, seed++}));    // too few scales: no ring
  EXPECT_TRUE(same_bits(SmallM{}, GemmCase{40, 520, 2000, seed++}));    // 64-row tiles, A box 40
  EXPECT_TRUE(same_bits(SmallM{}, GemmCase{200, 300, 1024, seed++}));
  EXPECT_TRUE(same_bits(MediumM{}, GemmCase{100, 1000, 2000, seed++}));
  EXPECT_TRUE(same_bits(Default5{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(Default5{}, GemmCase{200, 136, 4096, seed++}));  // tail box, ring
  // AutoGemm's Blockwise stream-K form: 4 tile rows cut in column groups, the ring in each segment
  EXPECT_TRUE(same_bits(StreamKOf<Default5>{}, GemmCase{512, 2600, 1500, seed++}));
  // ... with the last tile row past M (rows 384-499: the tail box and the ring's clamped rows in
  // cut tiles), and the hybrid walk: 16 x 19 tiles on 132 SMs run one wave whole, then cut the
  // other 172 tile by tile (16 tile rows: no column groups), the last tile row past M again
  EXPECT_TRUE(same_bits(StreamKOf<Default5>{}, GemmCase{500, 2600, 1500, seed++}));
  EXPECT_TRUE(same_bits(StreamKOf<Default5>{}, GemmCase{2000, 2400, 1500, seed++}));
  // 2-CTA clusters: each CTA copies its own tile's scales beside the multicast halves; odd tile
  // counts along the paired dimension (a pair's second tile past the matrix)
  EXPECT_TRUE(same_bits(RingMulticastA{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(RingMulticastA{}, GemmCase{200, 136, 4096, seed++}));
  EXPECT_TRUE(same_bits(RingMulticastB{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(RingMulticastB{}, GemmCase{300, 600, 1300, seed++}));
  // 256-row tiles: a last tile row with both copies' rows (M = 1100: rows 1024-1099, the second
  // copy past M) and one with the second copy partly in (M = 700: rows 512-699)
  static_assert(Ring256::Mainloop::kScaleRing && Ring256MulticastA::Mainloop::kScaleRing);
  EXPECT_TRUE(same_bits(Ring256{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(Ring256{}, GemmCase{700, 136, 2000, seed++}));
  EXPECT_TRUE(same_bits(Ring256MulticastA{}, GemmCase{1100, 1000, 600, seed++}));
  EXPECT_TRUE(same_bits(Ring256MulticastA{}, GemmCase{700, 136, 2000, seed++}));
  // A multicast pairs tiles along N: 9 tile columns, the last pair's second tile past N
  EXPECT_TRUE(same_bits(RingMulticastA{}, GemmCase{700, 1100, 600, seed++}));
  EXPECT_TRUE(same_bits(Ring256MulticastA{}, GemmCase{700, 1100, 600, seed++}));
}

/// Checked tiles (TmaWgmmaMainloop::check_tile): with the grid capped at 3 SMs every CTA walks
/// 12-24 tiles, so each tile past a CTA's first is checked by the producer warpgroup's spare
/// warps and, where every scale product is normal, promoted in the folded form alone. Poisoned
/// A scales (zeros, one whose products underflow, a NaN; one in a tile's first consumer's rows)
/// send their tiles to the voting loop.
/// With A's scales through the ring, and row-major (loaded by the consumers, no tile checked:
/// the voting loop), both against the run on every SM, where each CTA takes a tile or two and
/// votes in its first: the same bits. Also
/// one consumer (SmallM: four consumer warps release a flag slot), MediumM, the five-stage 128 x
/// 128 tile with bf16 C, 256 x 128 (two row blocks per consumer), 2-CTA clusters, split-K with
/// empty splits (7 k-blocks in 6 splits: items with nothing to multiply still pass their flags),
/// and one tile per CTA (nothing checked). The bits cannot tell which loop ran; the timing does
/// (docs/performance.md#sm90-checked-tiles).
TEST(WgmmaScaleLayout, CheckedTilesGiveTheSameBits) {
  using Default = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                             Epilogue<float, Identity>>;
  using Large =
      GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;
  static_assert(Default::Mainloop::kCheckedTiles && Large::Mainloop::kCheckedTiles);
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  auto same_bits = [](auto config, GemmCase c, bool poison) -> ::testing::AssertionResult {
    using Config = decltype(config);
    using ElementC = typename Config::ElementC;
    GemmProblem<Config> p(c);
    int const kbs = (c.k + 127) / 128;
    if (poison) {                                              // A's scales, [M][K / 128]
      p.sa_f[static_cast<std::size_t>(40 * kbs + 2)] = -0.0f;  // the first consumer's rows
      p.sa_f[static_cast<std::size_t>(200 * kbs + 1)] = 0.0f;
      p.sa_f[static_cast<std::size_t>(700 * kbs + 3)] = 1e-38f;
      p.sa_f[static_cast<std::size_t>(1000 * kbs)] = std::numeric_limits<float>::quiet_NaN();
      p.derive_reference();  // FP64 from the scales as they are now
    }
    std::vector<ElementC> all, row, kb;
    std::string report;
    // the reference: every SM, at most a tile or two per CTA (these shapes' 36-288 tiles), so
    // (nearly) every tile takes the voting loop
    GemmProblem<Config> every = p;
    every.cs.sm_count = 0;
    if (auto r = run_on_gpu(every, nullptr, &all); !r) return r;
    if (auto r = run_on_gpu(p, nullptr, &row); !r) return r;
    if (auto r = run_on_gpu_with(p, &report, &kb, std::int64_t{c.m} + 5); !r) return r << report;
    std::size_t const bytes = all.size() * sizeof(ElementC);
    if (std::memcmp(all.data(), row.data(), bytes) != 0)
      return ::testing::AssertionFailure() << describe(c) << (poison ? " (poisoned)" : "")
                                           << ": row-major scales on few SMs differ from "
                                              "every SM's";
    if (std::memcmp(all.data(), kb.data(), bytes) != 0)
      return ::testing::AssertionFailure() << describe(c) << (poison ? " (poisoned)" : "")
                                           << ": checked tiles (the scale ring) differ from "
                                              "every SM's";
    return ::testing::AssertionSuccess();
  };
  using SmallM =
      GemmConfig<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using MediumM = GemmConfig<Sm90WgmmaMediumM<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                             Epilogue<bf16, Identity>>;
  using Default5 = GemmConfig<Sm90WgmmaDefaultBlockwise<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                              Epilogue<bf16, Identity>>;
  static_assert(SmallM::Mainloop::kCheckedTiles && MediumM::Mainloop::kCheckedTiles &&
                Default5::Mainloop::kCheckedTiles);
  // 2-CTA clusters: each CTA checks its own tiles; 256 x 128 promotes per row block
  static_assert(RingMulticastA::Mainloop::kCheckedTiles &&
                RingMulticastB::Mainloop::kCheckedTiles && Ring256::Mainloop::kCheckedTiles &&
                Ring256MulticastA::Mainloop::kCheckedTiles);
  for (bool poison : {false, true}) {
    GemmCase c{1100, 1000, 2000, seed++};
    c.sm_count = 3;
    EXPECT_TRUE(same_bits(Large{}, c, poison));
    c.seed = seed++;
    EXPECT_TRUE(same_bits(Default{}, c, poison));
    c.seed = seed++;
    EXPECT_TRUE(same_bits(SmallM{}, c, poison));
    c.seed = seed++;
    EXPECT_TRUE(same_bits(MediumM{}, c, poison));
    c.seed = seed++;
    EXPECT_TRUE(same_bits(Default5{}, c, poison));
    GemmCase pairs = c;  // two clusters: each walks 6-12 tile pairs
    pairs.sm_count = 4;
    pairs.seed = seed++;
    EXPECT_TRUE(same_bits(RingMulticastA{}, pairs, poison));
    pairs.seed = seed++;
    EXPECT_TRUE(same_bits(RingMulticastB{}, pairs, poison));
    pairs.seed = seed++;
    EXPECT_TRUE(same_bits(Ring256MulticastA{}, pairs, poison));
    c.seed = seed++;
    EXPECT_TRUE(same_bits(Ring256{}, c, poison));
    GemmCase split{1100, 1000, 896, seed++};  // 7 k-blocks in 6 splits: two are empty
    split.split_k = 6;
    split.sm_count = 5;
    EXPECT_TRUE(same_bits(Large{}, split, poison));
    GemmCase one{1100, 1000, 2000, seed++};  // every CTA one tile: nothing checked
    EXPECT_TRUE(same_bits(Large{}, one, poison));
  }
}

/// Whether Config's kernel, initialized for x, takes the scale ring (Params::scale_ring).
template <class Config>
bool scale_ring_taken(typename Gemm<Config>::Arguments const& x) {
  typename Config::Kernel::Params p;
  Status const st = Config::Kernel::initialize(Gemm<Config>::kernel_arguments(x), nullptr, p);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return p.mainloop.scale_ring;
}

/// Where a Blockwise call's scales go through the ring (Params::scale_ring): A's scales
/// K-block-major, both arrays 16-byte aligned and at least a copy's box long; otherwise
/// (row-major A scales, a misaligned array, too few scales) the consumers load them.
TEST(WgmmaScaleLayout, RingTakenWhereTheLayoutAllows) {
  using Config = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                            Epilogue<float, Identity>>;
  using G = Gemm<Config>;
  using Kernel = Config::Kernel;
  static_assert(Kernel::Mainloop::kScaleRing);
  int const m = 300, n = 256, k = 1024, kb = k / 128, ld = m + 5;
  DeviceBuffer a, b, sa, sb, c;
  ASSERT_EQ(a.allocate(std::size_t(m) * k), cudaSuccess);
  ASSERT_EQ(b.allocate(std::size_t(n) * k), cudaSuccess);
  ASSERT_EQ(sa.allocate(sizeof(float) * (std::size_t(ld) * kb + 4)), cudaSuccess);
  ASSERT_EQ(sb.allocate(sizeof(float) * (std::size_t(n / 128) * kb + 4)), cudaSuccess);
  ASSERT_EQ(c.allocate(std::size_t(m) * n * sizeof(float)), cudaSuccess);
  G::Arguments args;
  args.problem = {m, n, k};
  args.a = a.as<e4m3fn>(), args.lda = k;
  args.b = b.as<e4m3fn>(), args.ldb = k;
  args.scale_a = sa.as<float>(), args.scale_a_count = std::int64_t{ld} * kb;
  args.scale_b = sb.as<float>(), args.scale_b_count = (n / 128) * kb;
  args.epilogue.c = c.as<float>(), args.epilogue.ldc = n;
  auto ring = [](G::Arguments const& x) { return scale_ring_taken<Config>(x); };
  G::Arguments row_major = args;
  row_major.scale_a_count = std::int64_t{m} * kb;
  ASSERT_TRUE(G::can_implement(row_major).ok());
  EXPECT_FALSE(ring(row_major));
  args.scale_a_ld = ld;
  ASSERT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
  EXPECT_TRUE(ring(args));
  G::Arguments misaligned = args;  // A's scales 4 bytes into the buffer
  misaligned.scale_a = sa.as<float>() + 1;
  ASSERT_TRUE(G::can_implement(misaligned).ok());
  EXPECT_FALSE(ring(misaligned));
  misaligned = args;
  misaligned.scale_b = sb.as<float>() + 1;
  EXPECT_FALSE(ring(misaligned));
  G::Arguments decode = args;  // M = 1 at K = 1024: 8 scales of A, fewer than a box of 128
  decode.problem.m = 1, decode.scale_a_ld = 1, decode.scale_a_count = kb;
  ASSERT_TRUE(G::can_implement(decode).ok()) << G::can_implement(decode).to_string();
  EXPECT_FALSE(ring(decode));
  // AutoGemm's Blockwise stream-K form (five stages, bf16 C) takes it too: WgmmaStreamK compares
  // its two A scale layouts' bits, which without the ring would compare one loop with itself
  using Sk = StreamKOf<GemmConfig<Sm90WgmmaDefaultBlockwise<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                                  Epilogue<bf16, Identity>>>;
  static_assert(Sk::Kernel::Mainloop::kScaleRing);
  Gemm<Sk>::Arguments sk;
  sk.problem = args.problem;
  sk.a = args.a, sk.lda = args.lda, sk.b = args.b, sk.ldb = args.ldb;
  sk.scale_a = args.scale_a, sk.scale_a_count = args.scale_a_count, sk.scale_a_ld = ld;
  sk.scale_b = args.scale_b, sk.scale_b_count = args.scale_b_count;
  sk.epilogue.c = c.as<bf16>(), sk.epilogue.ldc = n;
  EXPECT_TRUE(scale_ring_taken<Sk>(sk));
}

/// Device buffers for a per-tensor GEMM of M x N x K (A [M, K], B [N, K], one scale each, C
/// [M, ldc]) and Arguments pointing at them, for host-side checks (can_implement,
/// Kernel::initialize): their contents are never read.
template <class Config>
struct UnfilledOperands {
  DeviceBuffer a, b, sa, sb, c;
  typename Gemm<Config>::Arguments args;
  ::testing::AssertionResult allocate(int m, int n, int k, int ldc) {
    using C = typename Config::ElementC;
    FP8GEMM_TEST_CUDA(a.allocate(std::size_t(m) * k));
    FP8GEMM_TEST_CUDA(b.allocate(std::size_t(n) * k));
    FP8GEMM_TEST_CUDA(sa.allocate(sizeof(float)));
    FP8GEMM_TEST_CUDA(sb.allocate(sizeof(float)));
    FP8GEMM_TEST_CUDA(c.allocate(std::size_t(m) * ldc * sizeof(C)));
    args.problem.m = m, args.problem.n = n, args.problem.k = k;
    args.a = a.as<typename Config::ElementA>(), args.lda = k;
    args.b = b.as<typename Config::ElementB>(), args.ldb = k;
    args.scale_a = sa.as<float>(), args.scale_a_count = 1;
    args.scale_b = sb.as<float>(), args.scale_b_count = 1;
    args.epilogue.c = c.as<C>(), args.epilogue.ldc = ldc;
    return ::testing::AssertionSuccess();
  }
};

// ---- which epilogue path a launch takes ---------------------------------------------------------

/// The default tile with bf16 C stores through TMA exactly where C's rows are 16-byte aligned
/// (ldc a multiple of 8 bf16) and N is whole 16-byte units (TMA clips stores at 16-byte
/// granularity: TmaStoreEpilogue's NOTE); otherwise the same launch falls back to the stores
/// from registers (MatchesFp64 above runs both paths against FP64).
TEST(WgmmaTmaStore, TakenWhereCsRowsAre16ByteAligned) {
  using Config = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using Kernel = Config::Kernel;
  static_assert(std::is_same_v<Config::CollectiveEpilogue,
                               TmaStoreEpilogue<Sm90WgmmaDefault<>, PerTensor, Epilogue<bf16>>>);
  UnfilledOperands<Config> o;
  ASSERT_TRUE(o.allocate(200, 256, 256, 264));  // the widest (n, ldc) below
  auto& args = o.args;
  // (n, ldc): rows 16-byte aligned and whole 16-byte units (N a multiple of 8 bf16) -> TMA
  for (auto [n, ldc, tma] : {std::tuple{256, 256, true},
                             {256, 264, true},
                             {248, 256, true},
                             {256, 259, false},
                             {256, 258, false},
                             {250, 256, false}}) {
    args.problem.n = n, args.epilogue.ldc = ldc;
    ASSERT_TRUE(Gemm<Config>::can_implement(args).ok());
    Kernel::Params p;
    Status const st = Kernel::initialize(Gemm<Config>::kernel_arguments(args), nullptr, p);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(p.epilogue.tma_store, tma) << "n " << n << " ldc " << ldc;
  }
}

// ---- the [K, N] -> [N, K] helper the kKN refusal names ---------------------------------------

TEST(WgmmaTranspose, GpuHelperMatchesTheHostOne) {
  std::mt19937 rng(std::random_device{}());
  TransposeArgs const t{1000, 333, 336, 1008};  // K, N, ld_src >= N, ld_dst >= K (16-multiple)
  std::vector<e4m3fn> src(static_cast<std::size_t>(t.k * t.ld_src));
  for (auto& x : src) x = e4m3fn::from_bits(static_cast<std::uint8_t>(rng()));
  std::vector<e4m3fn> want(static_cast<std::size_t>(t.n * t.ld_dst), e4m3fn::from_bits(0x7F));
  std::vector<e4m3fn> got = want;
  ASSERT_TRUE(transpose_kn_to_nk_host(src.data(), want.data(), t).ok());
  DeviceBuffer s, d;
  ASSERT_EQ(upload(s, src), cudaSuccess);
  ASSERT_EQ(upload(d, got), cudaSuccess);  // padding poisoned like `want`'s
  Status const st = transpose_kn_to_nk_gpu(s.as<e4m3fn>(), d.as<e4m3fn>(), t);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(download(got, d), cudaSuccess);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].bits != want[i].bits;
  EXPECT_EQ(differ, 0u);
}

// ---- refusals ----------------------------------------------------------------------------------

TEST(WgmmaRefusals, SaySoInWords) {
  using G = Gemm<Promoted>;
  UnfilledOperands<Promoted> o;
  ASSERT_TRUE(o.allocate(64, 64, 256, 64));
  G::Arguments const& args = o.args;
  ASSERT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();

  auto expect_refusal = [](G::Arguments const& x, char const* words) {
    Status const st = G::can_implement(x);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(words), std::string::npos) << st.message();
  };
  G::Arguments x = args;
  x.split_k = 3;  // K = 256: two K tiles
  expect_refusal(x, "split_k must be in [1, ceil(K / BlockK)");
  x.split_k = 2;  // valid, but no workspace
  expect_refusal(x, "split_k > 1 needs a workspace of");
  x = args;
  x.sm_count = -1;
  expect_refusal(x, "sm_count must be >= 0");
  x = args;
  x.a = reinterpret_cast<e4m3fn const*>(o.a.as<std::uint8_t>() + 8);
  expect_refusal(x, "16");
  x = args;
  x.ldb = 264;  // 264 % 16 = 8
  expect_refusal(x, "multiple of 16");
  x = args;
  x.lda = 128;
  expect_refusal(x, "lda");
}

// ---- 2-CTA clusters with TMA multicast ----------------------------------------------------------
// gtest filter: WgmmaMulticast* (the fixture's name hides the enum: ::fp8gemm::WgmmaMulticast)

using MulticastConfigs = ::testing::Types<
    // the default 128 x 128 promoted tile, sharing A (pairs along N) or B (pairs along M)
    GemmConfig<Sm90WgmmaDefaultMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDefaultMulticastB<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    // the fast 128 x 256 tile
    GemmConfig<Sm90WgmmaFastMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>,
               FastAccumulation>,
    GemmConfig<Sm90WgmmaFastMulticastB<e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<float, GeluErf>, FastAccumulation>,
    // blockwise with A shared (scales read per CTA, tiles shared), and with B shared
    GemmConfig<Sm90WgmmaDefaultMulticastA<>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<bf16, Identity>>,
    GemmConfig<Sm90WgmmaDefaultMulticastB<e4m3fn, e5m2>, Blockwise<128, 128, 128>, LayoutB::kNK,
               Epilogue<float, GeluTanh>>,
    // per-channel, e5m2 x e4m3fn, fp16 out with GELU
    GemmConfig<Sm90WgmmaDefaultMulticastA<e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<fp16, GeluTanh>>,
    // one consumer, 64 x 64 tiles (32-row halves), 13 stages
    GemmConfig<WgmmaTilePolicy<64, 64, 1, 13, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               ::fp8gemm::WgmmaMulticast::kA>,
               PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<WgmmaTilePolicy<64, 64, 1, 13, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                               ::fp8gemm::WgmmaMulticast::kB>,
               PerTensor, LayoutB::kNK, Epilogue<e4m3fn, Identity>>>;

template <class Config>
class WgmmaMulticast : public ::testing::Test {};
TYPED_TEST_SUITE(WgmmaMulticast, MulticastConfigs, ConfigName);

/// Edges in M, N and K; odd tile counts along the paired dimension (a pair's second tile past
/// the matrix: loaded, multiplied, not stored); M below half a tile (A's second half wholly past
/// M); more tile pairs than the H200's 66 clusters (clusters loop, carrying both rings' stage and
/// phase); fresh data per config.
TYPED_TEST(WgmmaMulticast, MatchesFp64) {
  std::uint64_t seed = 5000 + std::hash<std::string>{}(Gemm<TypeParam>::name()) % 1000;
  for (GemmCase c :
       {GemmCase{1, 256, 512}, GemmCase{1, 1, 1}, GemmCase{40, 300, 256}, GemmCase{17, 33, 65},
        GemmCase{127, 131, 300},
        // 5 tile rows and 5 (BlockN 128) or 3 (256) tile columns: odd along both dimensions
        GemmCase{640, 640, 384, 0, Distribution::kRowRanges},
        GemmCase{257, 509, 1000, 0, Distribution::kOutliers},
        GemmCase{600, 1100, 2048, 0, Distribution::kUniform, false}, GemmCase{520, 300, 4100},
        // 18 x 17 tiles of 128 x 128 (162 / 153 pairs), 18 x 9 of 128 x 256: > 66 clusters
        GemmCase{2304, 2100, 650}, GemmCase{2200, 2304, 1300}}) {
    c.seed = seed++;
    c.ldc_pad = ldc_pad_for(c);
    expect_matches_fp64<TypeParam>(c);
  }
}

TYPED_TEST(WgmmaMulticast, NanInAPropagatesToItsRowOnly) {
  GemmCase c{300, 450, 333, 77};
  c.nan_at = 141 * 333 + 200;  // row 141: the second A half of tile row 1
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_gpu(p));
}

/// Same bytes, same per-tile arithmetic: the clustered kernels give the unclustered default's
/// outputs bit for bit (promoted: 128 x 128; fast: 128 x 256), odd tile counts included.
TEST(WgmmaMulticastBitwise, SameOutputsAsUnclustered) {
  using PromotedA =
      GemmConfig<Sm90WgmmaDefaultMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
  using PromotedB =
      GemmConfig<Sm90WgmmaDefaultMulticastB<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
  using FastA = GemmConfig<Sm90WgmmaFastMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<float>,
                           FastAccumulation>;
  using FastB = GemmConfig<Sm90WgmmaFastMulticastB<>, PerTensor, LayoutB::kNK, Epilogue<float>,
                           FastAccumulation>;
  for (GemmCase c :
       {GemmCase{1100, 1300, 1000}, GemmCase{2304, 2100, 650}, GemmCase{70, 90, 200}}) {
    c.seed = std::random_device{}();
    GemmProblem<Promoted> const p(c);
    std::vector<float> base, fast_base, got;
    ASSERT_TRUE(run_same_bytes<Promoted>(p, base));
    ASSERT_TRUE(run_same_bytes<Fast>(p, fast_base));
    auto differ = [&](std::vector<float> const& want) {
      std::size_t d = 0;
      for (int m = 0; m < c.m; ++m)
        for (int n = 0; n < c.n; ++n) {
          std::size_t const i = static_cast<std::size_t>(m * p.ldc + n);
          d += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
        }
      return d;
    };
    ASSERT_TRUE(run_same_bytes<PromotedA>(p, got));
    EXPECT_EQ(differ(base), 0u) << "mcA " << describe(c);
    ASSERT_TRUE(run_same_bytes<PromotedB>(p, got));
    EXPECT_EQ(differ(base), 0u) << "mcB " << describe(c);
    ASSERT_TRUE(run_same_bytes<FastA>(p, got));
    EXPECT_EQ(differ(fast_base), 0u) << "fast mcA " << describe(c);
    ASSERT_TRUE(run_same_bytes<FastB>(p, got));
    EXPECT_EQ(differ(fast_base), 0u) << "fast mcB " << describe(c);
  }
}

/// Split-K with pairs: both CTAs of a cluster take the same split of their two tiles. 3/3/3/2 K
/// tiles with K-blocked scales, 8/8/8, and 2/2/1/0 (an empty split: both CTAs skip it).
TEST(WgmmaMulticastSplitK, DeterministicAndMatchesUnsplit) {
  using BlockA = GemmConfig<Sm90WgmmaDefaultMulticastA<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                            Epilogue<float, Identity>>;
  using SmallB =
      GemmConfig<WgmmaTilePolicy<64, 64, 1, 13, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                                 ::fp8gemm::WgmmaMulticast::kB>,
                 PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using FastA = GemmConfig<Sm90WgmmaFastMulticastA<>, PerChannel, LayoutB::kNK,
                           Epilogue<e4m3fn, GeluTanh>, FastAccumulation>;
  std::uint64_t seed = std::random_device{}();
  std::cout << "  seed " << seed << "\n";
  GemmCase a{300, 700, 1300, seed++};
  a.split_k = 4;
  EXPECT_TRUE(split_k_consistent<BlockA>(a, run_on_gpu<BlockA>));
  GemmCase b{16, 1000, 3000, seed++};
  b.split_k = 3;
  EXPECT_TRUE(split_k_consistent<SmallB>(b, run_on_gpu<SmallB>));
  GemmCase c{70, 600, 600, seed++};
  c.split_k = 4;
  EXPECT_TRUE(split_k_consistent<FastA>(c, run_on_gpu<FastA>));
}

/// The persistent cluster grid: Kernel::initialize caps it at the clusters the device holds at
/// once (cudaOccupancyMaxActiveClusters); on the H200 that must still cover nearly every SM
/// (a GPC with an odd number of SMs leaves one idle), or a clustered kernel runs on a fraction
/// of the machine. Prints what the device reports.
template <class Policy, class Acc>
void expect_cluster_grid_covers_the_sms() {
  using Config = GemmConfig<Policy, PerTensor, LayoutB::kNK, Epilogue<bf16>, Acc>;
  using Kernel = typename Config::Kernel;
  UnfilledOperands<Config> o;
  ASSERT_TRUE(o.allocate(8192, 8192, 128, 8192));
  auto const& args = o.args;
  ASSERT_TRUE(Gemm<Config>::can_implement(args).ok());
  typename Kernel::Params p;
  Status const st = Kernel::initialize(Gemm<Config>::kernel_arguments(args), nullptr, p);
  ASSERT_TRUE(st.ok()) << st.to_string();
  int clusters = 0, sms = 0;
  ASSERT_TRUE(arch::max_active_clusters<Kernel>(&clusters).ok());
  ASSERT_TRUE(arch::multiprocessor_count(&sms).ok());
  std::cout << "  " << Gemm<Config>::name() << ": " << Kernel::kSharedBytes
            << " B shared memory, max active clusters " << clusters << ", SMs " << sms << ", grid "
            << p.scheduler.grid << "\n";
  EXPECT_GE(p.scheduler.grid, sms * 9 / 10);
}

TEST(WgmmaMulticastGrid, CoversNearlyEverySm) {
  expect_cluster_grid_covers_the_sms<Sm90WgmmaDefaultMulticastA<>, AtomDefaultAccumulation>();
  expect_cluster_grid_covers_the_sms<Sm90WgmmaFastMulticastB<>, FastAccumulation>();
}

}  // namespace
}  // namespace fp8gemm::test
