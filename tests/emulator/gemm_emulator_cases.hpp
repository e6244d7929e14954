// SPDX-License-Identifier: MIT
// Shared cases of the GEMM emulator tests (typed-test pattern, instantiated per file): small and
// ragged shapes (1x1x1, 17x33x65, 256x256x256, 300x200x1000), NaN propagation, split-K.
#pragma once

#include <gtest/gtest.h>

#include <iostream>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {

struct ConfigName {
  template <class T>
  static std::string GetName(int) { return Gemm<T>::name(); }
};

template <class Config>
class GemmOnEmulator : public ::testing::Test {};
TYPED_TEST_SUITE_P(GemmOnEmulator);

TYPED_TEST_P(GemmOnEmulator, MatchesFp64OnRaggedShapes) {
  std::uint64_t seed = 500;
  for (GemmCase c : {GemmCase{1, 1, 1}, GemmCase{17, 33, 65},
                     GemmCase{256, 256, 256, 0, Distribution::kRowRanges},
                     GemmCase{300, 200, 1000, 0, Distribution::kOutliers}}) {
    c.seed = seed++;
    GemmProblem<TypeParam> const p(c);
    std::string report;
    EXPECT_TRUE(run_on_host(p, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  }
}

TYPED_TEST_P(GemmOnEmulator, NanPropagatesAndSplitKMatches) {
  GemmCase c{70, 40, 700, 900};
  c.nan_at = 3 * 700 + 650;
  c.split_k = 2;
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_host(p));
}

REGISTER_TYPED_TEST_SUITE_P(GemmOnEmulator, MatchesFp64OnRaggedShapes, NanPropagatesAndSplitKMatches);

}  // namespace fp8gemm::test
