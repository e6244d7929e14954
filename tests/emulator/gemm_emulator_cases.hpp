// SPDX-License-Identifier: MIT
// Shared cases of the GEMM emulator tests (typed-test pattern, instantiated per file): small and
// ragged shapes (1x1x1, 17x33x65, 256x256x256, 300x200x1000, 130x160x1000 with K blocks a power of
// two apart: a scale read for the wrong k-block fails it), NaN propagation, split-K.
#pragma once

#include <gtest/gtest.h>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {

template <class Config>
class GemmOnEmulator : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmOnEmulator);

TYPED_TEST_P(GemmOnEmulator, MatchesFp64OnRaggedShapes) {
  expect_host_matches_fp64<TypeParam>({GemmCase{1, 1, 1, 500}, GemmCase{17, 33, 65, 501},
                                       GemmCase{256, 256, 256, 502, Distribution::kRowRanges},
                                       GemmCase{300, 200, 1000, 503, Distribution::kOutliers},
                                       GemmCase{130, 160, 1000, 504, Distribution::kKRanges}});
}

TYPED_TEST_P(GemmOnEmulator, NanPropagatesAndSplitKMatches) {
  GemmCase c{70, 40, 700, 900};
  c.nan_at = 3 * 700 + 650;
  c.split_k = 2;
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_host(p));
}

REGISTER_TYPED_TEST_SUITE_P(GemmOnEmulator, MatchesFp64OnRaggedShapes,
                            NanPropagatesAndSplitKMatches);

}  // namespace fp8gemm::test
