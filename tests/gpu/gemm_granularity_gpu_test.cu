// SPDX-License-Identifier: MIT
// Every scale granularity x both B layouts, on the default Hopper policy (H200, label gpu).
#include <gtest/gtest.h>

#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {
using D = Sm90Default<>;
using Configs = ::testing::Types<
    GemmConfig<D, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<D, PerTensor, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
    GemmConfig<D, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>,
    GemmConfig<D, PerChannel, LayoutB::kKN, Epilogue<fp16, GeluErf>>,
    GemmConfig<D, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<D, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<e4m3fn, GeluTanh>>,
    GemmConfig<D, Mx32, LayoutB::kNK, Epilogue<bf16, GeluErf>>,
    GemmConfig<D, Mx32, LayoutB::kKN, Epilogue<float, Identity>>>;
}  // namespace
}  // namespace fp8gemm::test

#include "gemm_gpu_test_main.inc"
