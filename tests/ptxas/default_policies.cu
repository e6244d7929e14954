// SPDX-License-Identifier: MIT
// The Hopper WGMMA default policies' kernels, compiled with -Xptxas -v by ptxas_check.cmake (label
// ptxas, no GPU): ptxas must report no spills and no wgmma serialization (C75xx) for any of them.
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
using PromotedBf16 = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using PromotedGelu =
    GemmConfig<Sm90WgmmaDefault<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using BlockwiseFp8 =
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>;
using FastBf16 =
    GemmConfig<Sm90WgmmaFast<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;
using SmallMFp32 = GemmConfig<Sm90WgmmaSmallM<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
using SmallMBlockwise =
    GemmConfig<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

Status run_all(Gemm<PromotedBf16>::Arguments const& a, Gemm<PromotedGelu>::Arguments const& b,
               Gemm<BlockwiseFp8>::Arguments const& c, Gemm<FastBf16>::Arguments const& d,
               Gemm<SmallMFp32>::Arguments const& e, Gemm<SmallMBlockwise>::Arguments const& f) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<PromotedBf16>::run(a));
  FP8GEMM_RETURN_IF_ERROR(Gemm<PromotedGelu>::run(b));
  FP8GEMM_RETURN_IF_ERROR(Gemm<BlockwiseFp8>::run(c));
  FP8GEMM_RETURN_IF_ERROR(Gemm<FastBf16>::run(d));
  FP8GEMM_RETURN_IF_ERROR(Gemm<SmallMFp32>::run(e));
  return Gemm<SmallMBlockwise>::run(f);
}
}  // namespace fp8gemm
