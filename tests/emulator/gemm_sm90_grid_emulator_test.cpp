// SPDX-License-Identifier: MIT
// The Hopper grid (tests/common/gemm_grids.hpp) on the host emulator: the mainloop's
// indexing, tails, scales and epilogue for every format pair x granularity, without a GPU.
#include <gtest/gtest.h>

#include "common/gemm_grids.hpp"
#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {
INSTANTIATE_TYPED_TEST_SUITE_P(Sm90Grid, GemmOnEmulator, Sm90GridConfigs, ConfigName);
}  // namespace
}  // namespace fp8gemm::test
