// SPDX-License-Identifier: MIT
// The default gfx950 policies on the host emulator (every MFMA computed from the 64 lanes'
// registers per the documented layout) against the FP64 reference: the format x granularity grid
// of tests/common/gemm_grids.hpp (all 15 activation x output type pairs). Blockwise and MX-32 use
// Cdna4KBlocked (the policy for K-blocked scales); MX-32 goes through the scaled MFMA.
#include <gtest/gtest.h>

#include "common/gemm_grids.hpp"
#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {
INSTANTIATE_TYPED_TEST_SUITE_P(Gfx950, GemmOnEmulator, Gfx950GridConfigs, ConfigName);
}  // namespace
}  // namespace fp8gemm::test
