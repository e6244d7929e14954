// SPDX-License-Identifier: MIT
// The default gfx950 policies on the host emulator (every MFMA computed from the 64 lanes'
// registers per the documented layout) against the FP64 reference: the format x granularity grid
// of tests/common/gemm_grids.hpp (all 15 activation x output type pairs). Blockwise uses
// Cdna4KBlocked (the policy for promoted K-blocked scales); MX-32 runs on Cdna4Default through the
// scaled MFMA, its E8M0 bytes loaded ahead into the registers the MFMA reads.
#include <gtest/gtest.h>

#include "common/gemm_grids.hpp"
#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {
INSTANTIATE_TYPED_TEST_SUITE_P(Gfx950, GemmOnEmulator, Gfx950GridConfigs, ConfigName);
}  // namespace
}  // namespace fp8gemm::test
