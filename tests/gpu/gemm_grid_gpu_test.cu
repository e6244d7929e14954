// SPDX-License-Identifier: MIT
// The Hopper grid (tests/common/gemm_grids.hpp) on the GPU: Sm90Default x every format pair
// x every granularity, epilogues rotating (H200, label gpu).
#include <gtest/gtest.h>

#include "common/gemm_grids.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {
using Configs = Sm90GridConfigs;
}  // namespace
}  // namespace fp8gemm::test

#include "gemm_gpu_test_main.inc"
