// SPDX-License-Identifier: MIT
// The default gfx950 policies on the host emulator (every MFMA computed from the 64 lanes'
// registers per the documented layout) against the FP64 reference: every format pair x every
// granularity, with the B layout alternating and the epilogue (activation x output type) rotating
// so that all 15 pairs appear. gfx950 Blockwise and MX-32
// use Cdna4KBlocked (the policy for K-blocked scales); MX-32 goes through the scaled MFMA.
#include <gtest/gtest.h>

#include "gemm_emulator_cases.hpp"

namespace fp8gemm::test {
namespace {

using Configs = ::testing::Types<
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>,
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<fp16, GeluErf>>,
    GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>,
    GemmConfig<Cdna4Default<e4m3fn, e5m2>, PerTensor, LayoutB::kKN, Epilogue<e5m2, GeluTanh>>,
    GemmConfig<Cdna4Default<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>>,
    GemmConfig<Cdna4KBlocked<e4m3fn, e5m2>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<bf16, Identity>>,
    GemmConfig<Cdna4KBlocked<e4m3fn, e5m2>, Mx32, LayoutB::kNK, Epilogue<fp16, GeluTanh>>,
    GemmConfig<Cdna4Default<e5m2, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>,
    GemmConfig<Cdna4Default<e5m2, e4m3fn>, PerChannel, LayoutB::kKN, Epilogue<e5m2, Identity>>,
    GemmConfig<Cdna4KBlocked<e5m2, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, GeluTanh>>,
    GemmConfig<Cdna4KBlocked<e5m2, e4m3fn>, Mx32, LayoutB::kKN, Epilogue<bf16, GeluErf>>,
    GemmConfig<Cdna4Default<e5m2, e5m2>, PerTensor, LayoutB::kKN, Epilogue<fp16, Identity>>,
    GemmConfig<Cdna4Default<e5m2, e5m2>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>,
    GemmConfig<Cdna4KBlocked<e5m2, e5m2>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<e5m2, GeluErf>>,
    GemmConfig<Cdna4KBlocked<e5m2, e5m2>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Gfx950, GemmOnEmulator, Configs, ConfigName);

}  // namespace
}  // namespace fp8gemm::test
