// SPDX-License-Identifier: MIT
// The 32x32 MFMA atoms (gfx942 32x32x16, gfx950 32x32x64, also with hardware MX-32) in policies of
// their own, on the host emulator against the FP64 reference.
#include <gtest/gtest.h>

#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {

using Gfx942Mfma32 = TilePolicy<128, 128, 64, 2, 2, arch::Cdna3Mma32x32x16<e4m3fnuz, e5m2fnuz>, 2>;
using Gfx950Mfma32 = TilePolicy<128, 128, 128, 2, 2, arch::Cdna4Mma32x32x64<e5m2, e4m3fn>, 2>;
using Configs = ::testing::Types<
    GemmConfig<Gfx942Mfma32, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Gfx942Mfma32, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, Identity>>,
    GemmConfig<Gfx950Mfma32, PerTensor, LayoutB::kKN, Epilogue<fp16, GeluErf>>,
    GemmConfig<Gfx950Mfma32, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Mfma32x32, GemmOnEmulator, Configs, ConfigName);

}  // namespace
}  // namespace fp8gemm::test
