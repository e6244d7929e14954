// SPDX-License-Identifier: MIT
// Format pairs, output types, epilogues and policies (H200, label gpu).
#include <gtest/gtest.h>

#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {
using Configs = ::testing::Types<
    GemmConfig<Sm90Default<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90Default<e5m2, e4m3fn>, PerTensor, LayoutB::kKN, Epilogue<float, GeluErf>>,
    GemmConfig<Sm90Default<e5m2, e5m2>, Blockwise<1, 128, 128>, LayoutB::kNK,
               Epilogue<e5m2, Identity>>,
    GemmConfig<Sm90SmallM<>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>,
    GemmConfig<Sm90SmallM<e5m2, e4m3fn>, Mx32, LayoutB::kKN, Epilogue<fp16, GeluTanh>>,
    GemmConfig<TilePolicy<64, 64, 64, 2, 2, arch::Sm89Mma16x8x32<e4m3fn, e4m3fn>, 4>, PerChannel,
               LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>,
               FastAccumulation>>;
}  // namespace
}  // namespace fp8gemm::test

#include "gemm_gpu_test_main.inc"
