// SPDX-License-Identifier: MIT
// The selection model (device/selection/model.hpp) against values derived by hand in the comments.
#include <gtest/gtest.h>

#include "fp8gemm/device/selection/model.hpp"
#include "fp8gemm/device/selection/targets.hpp"

namespace fp8gemm::selection {
namespace {

constexpr MachineModel kH200 =
    Sm90Target::kMachine;  // 1.3e15, 4.8e12, 12e12, 50 MiB, 224 KiB, 12 us, 1 us per wave
// Sm90WgmmaDecode<8>: C tile 8 x 64, K tile 128, 25 stages, swapped, efficiency 0.60
constexpr CandidateShape kDecode8 = {8, 64, 128, 25, true, true, 0.60};
constexpr CandidateShape kDecode16 = {16, 64, 128, 22, true, true, 0.60};
constexpr CandidateShape kDefault128 = {128, 128, 128, 6, false, true, 0.97};
constexpr CandidateShape kLarge = {128, 256, 128, 3, false, true, 1.0};

double rel(double got, double want) {
  return (got - want) / want;
}

// M = 16384, N = 106496, K = 16384, bf16 C, 132 SMs, Sm90WgmmaLarge (128 x 256, 3 stages):
//   tiles 128 x 416 = 53,248 in 404 waves; the raster's band for 132 tiles in flight: the least
//   b with b (b + 1) 128 >= 132 * 256, 16 tile rows; B (1,744,830,464 B > 50 MiB) read once per
//   band: ceil(128 / 16) = 8 times; a band's A rows 16 * 128 * 16384 = 32 MiB fit L2: A once.
//   dram = A 268,435,456 + B 8 * 1,744,830,464 + C 3,489,660,928 = 17,716,740,096 B (it was
//   A 404 times and B 128 times, 330 GB, before the band was modelled). Blockwise efficiencies
//   (Large 1.0, Default 0.89): Large's estimate is the lower one, as measured (H100, 49.7 against
//   79.8 ms: bench/results/h100/2026-12-06_0c73687_tune_blockwise_partial.json.gz).
TEST(SelectionModel, TheRasterBandKeepsBInL2AcrossItsRows) {
  Estimate const large = estimate(16384, 106496, 16384, 132, 1, 2, kLarge, kH200);
  EXPECT_EQ(large.tiles, 53248);
  EXPECT_EQ(large.waves, 404);
  EXPECT_EQ(large.dram_bytes, 17716740096.0);
  CandidateShape default_blockwise = kDefault128;
  default_blockwise.compute_efficiency = 0.89;
  Estimate const dflt = estimate(16384, 106496, 16384, 132, 1, 2, default_blockwise, kH200);
  EXPECT_LT(large.seconds, dflt.seconds);
}

// M = 1, N = K = 8192, bf16 C, 132 SMs, Decode<8>:
//   tiles = ceil(1/8) ceil(8192/64) = 128, one wave, wave efficiency 128/132 = 0.969697
//   flops = 2 * 128 * 8 * 64 * 8192 = 2^30 -> 2^30 / (1.3e15 * 0.6) = 1.3766 us
//   l2 = 128 * (8 + 64) * 8192 = 75,497,472 B -> / 12e12 = 6.2915 us
//   dram = A 8192 + B 67,108,864 (64 MiB > 50 MiB, but one tile row: read once) + C 16,384
//        = 67,133,440 B; in flight 25 * 72 * 128 = 230,400 B >= 224 KiB: stream efficiency 1
//        -> 67,133,440 / 4.8e12 = 13.9861 us (the largest term) / 0.969697 = 14.4232 us,
//        + 1 wave * 1 us = 15.4232 us
TEST(SelectionModel, DecodeIsBoundByStreamingB) {
  Estimate const e = estimate(1, 8192, 8192, 132, 1, 2, kDecode8, kH200);
  EXPECT_EQ(e.tiles, 128);
  EXPECT_EQ(e.waves, 1);
  EXPECT_NEAR(e.wave_efficiency, 128.0 / 132.0, 1e-12);
  EXPECT_EQ(e.flops, 1073741824.0);
  EXPECT_EQ(e.l2_bytes, 75497472.0);
  EXPECT_EQ(e.dram_bytes, 67133440.0);
  EXPECT_EQ(e.stream_efficiency, 1.0);
  EXPECT_NEAR(rel(e.seconds, 15.4232e-6), 0, 1e-4);
}

// M = 16, N = 4096, K = 8192, Decode<16>, split_k 2:
//   tiles = 1 * 64 = 64 (< 132 SMs), units 128, one wave, efficiency 128/132
//   dram = A 131,072 + B 33,554,432 (32 MiB: fits L2, read once) + C 131,072 = 33,816,576 B;
//   in flight 22 * 80 * 128 = 225,280 B -> stream efficiency 225,280 / 229,376 = 0.982143
//   -> 33,816,576 / (4.8e12 * 0.982143) / 0.969697 = 7.3974 us (l2: 64 * 80 * 8192 / 12e12 =
//   3.50 us, less) + 1 wave * 1 us; split-K: partials 2 * 2 * 16 * 4096 * 4 = 1,048,576 B /
//   4.8e12 = 0.2185 us + the split's fixed 12 us -> 20.6158 us
TEST(SelectionModel, SplitKFillsTheSmsAndPaysItsPartials) {
  Estimate const e = estimate(16, 4096, 8192, 132, 2, 2, kDecode16, kH200);
  EXPECT_EQ(e.tiles, 64);
  EXPECT_EQ(e.units, 128);
  EXPECT_EQ(e.waves, 1);
  EXPECT_EQ(e.dram_bytes, 33816576.0 + 1048576.0);
  EXPECT_NEAR(e.stream_efficiency, 225280.0 / 229376.0, 1e-12);
  EXPECT_NEAR(rel(e.seconds, 20.6158e-6), 0, 1e-4);
  // unsplit: 64 of 132 SMs busy: 33,816,576 / (4.8e12 * 0.982143) / (64 / 132) = 14.7948 us,
  // + 1 wave * 1 us = 15.7948 us
  EXPECT_NEAR(rel(estimate(16, 4096, 8192, 132, 1, 2, kDecode16, kH200).seconds, 15.7948e-6), 0,
              1e-4);
}

// Wave quantization: M = N = 1536, K = 8192, 128 x 128 tiles: 12 * 12 = 144 tiles on 132 SMs =
// 2 waves, efficiency 144 / 264 = 0.545455. Compute: 2 * 144 * 128 * 128 * 8192 = 3.8655e10 /
// (1.3e15 * 0.97) = 30.654 us; dram: A, B 12.58 MB each (fit L2), C 4.72 MB = 29.88 MB / 4.8e12 =
// 6.2 us; l2: 144 * 256 * 8192 / 12e12 = 25.17 us. max = 30.654 us / 0.545455 = 56.199 us,
// + 2 waves * 1 us = 58.199 us.
TEST(SelectionModel, APartialLastWaveCostsAWholeWave) {
  Estimate const e = estimate(1536, 1536, 8192, 132, 1, 2, kDefault128, kH200);
  EXPECT_EQ(e.tiles, 144);
  EXPECT_EQ(e.waves, 2);
  EXPECT_NEAR(e.wave_efficiency, 144.0 / 264.0, 1e-12);
  EXPECT_NEAR(rel(e.seconds, 58.199e-6), 0, 1e-4);
}

// A's copies only as tall as M (WGMMA, unswapped): M = 20 on 128-row tiles moves 24 rows of A.
TEST(SelectionModel, ARowsFollowMOnUnswappedWgmmaTiles) {
  CandidateShape medium = {128, 64, 128, 8, false, true, 0.85};
  Estimate const e = estimate(20, 64, 1024, 132, 1, 2, medium, kH200);
  EXPECT_EQ(e.l2_bytes, (24.0 + 64.0) * 1024.0);  // one tile
  EXPECT_NEAR(e.stream_efficiency, 8.0 * 88 * 128 / (224 * 1024), 1e-12);
  medium.a_rows_follow_m = false;  // the portable kernels load whole tiles
  EXPECT_EQ(estimate(20, 64, 1024, 132, 1, 2, medium, kH200).l2_bytes, (128.0 + 64.0) * 1024.0);
}

static_assert(estimate(1, 8192, 8192, 132, 1, 2, kDecode8, kH200).tiles == 128,
              "the model is constexpr");

}  // namespace
}  // namespace fp8gemm::selection
