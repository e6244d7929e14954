// SPDX-License-Identifier: MIT
/// The Hopper grid: Sm90Default x every format pair x every granularity, the B layout alternating
/// and the epilogue (activation x output type) rotating so that all 15 pairs appear. Shared by the
/// GPU test (tests/gpu/gemm_grid_gpu_test.cu) and its host-emulator twin.
#pragma once

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::test {

using Sm90GridConfigs = ::testing::Types<
    GemmConfig<Sm90Default<e4m3fn, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>,
    GemmConfig<Sm90Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
    GemmConfig<Sm90Default<e4m3fn, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<fp16, GeluErf>>,
    GemmConfig<Sm90Default<e4m3fn, e4m3fn>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>,
    GemmConfig<Sm90Default<e4m3fn, e5m2>, PerTensor, LayoutB::kKN, Epilogue<e5m2, GeluTanh>>,
    GemmConfig<Sm90Default<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>>,
    GemmConfig<Sm90Default<e4m3fn, e5m2>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<bf16, Identity>>,
    GemmConfig<Sm90Default<e4m3fn, e5m2>, Mx32, LayoutB::kNK, Epilogue<fp16, GeluTanh>>,
    GemmConfig<Sm90Default<e5m2, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>,
    GemmConfig<Sm90Default<e5m2, e4m3fn>, PerChannel, LayoutB::kKN, Epilogue<e5m2, Identity>>,
    GemmConfig<Sm90Default<e5m2, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, GeluTanh>>,
    GemmConfig<Sm90Default<e5m2, e4m3fn>, Mx32, LayoutB::kKN, Epilogue<bf16, GeluErf>>,
    GemmConfig<Sm90Default<e5m2, e5m2>, PerTensor, LayoutB::kKN, Epilogue<fp16, Identity>>,
    GemmConfig<Sm90Default<e5m2, e5m2>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluTanh>>,
    GemmConfig<Sm90Default<e5m2, e5m2>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<e5m2, GeluErf>>,
    GemmConfig<Sm90Default<e5m2, e5m2>, Mx32, LayoutB::kNK, Epilogue<float, Identity>>>;

}  // namespace fp8gemm::test
