// SPDX-License-Identifier: MIT
// The default gfx942 policies on the host emulator (every MFMA computed from the 64 lanes'
// registers per the documented layout) against the FP64 reference: every format pair x every
// granularity, with the B layout alternating and the epilogue (activation x output type) rotating
// so that all 15 pairs appear.
#include <gtest/gtest.h>

#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {

using Configs = ::testing::Types<
    GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerChannel, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<fp16, GeluErf>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Mx32, LayoutB::kKN, Epilogue<e4m3fnuz, Identity>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e5m2fnuz>, PerTensor, LayoutB::kKN, Epilogue<e5m2fnuz, GeluTanh>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e5m2fnuz>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e5m2fnuz>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<bf16, Identity>>,
    GemmConfig<Cdna3Default<e4m3fnuz, e5m2fnuz>, Mx32, LayoutB::kNK, Epilogue<fp16, GeluTanh>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e4m3fnuz>, PerTensor, LayoutB::kNK, Epilogue<e4m3fnuz, GeluErf>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e4m3fnuz>, PerChannel, LayoutB::kKN, Epilogue<e5m2fnuz, Identity>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e4m3fnuz>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, GeluTanh>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e4m3fnuz>, Mx32, LayoutB::kKN, Epilogue<bf16, GeluErf>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e5m2fnuz>, PerTensor, LayoutB::kKN, Epilogue<fp16, Identity>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e5m2fnuz>, PerChannel, LayoutB::kNK, Epilogue<e4m3fnuz, GeluTanh>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e5m2fnuz>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<e5m2fnuz, GeluErf>>,
    GemmConfig<Cdna3Default<e5m2fnuz, e5m2fnuz>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Gfx942, GemmOnEmulator, Configs, ConfigName);

}  // namespace
}  // namespace fp8gemm::test
