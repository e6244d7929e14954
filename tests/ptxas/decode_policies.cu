// SPDX-License-Identifier: MIT
// The swapped-operand decode policies' kernels (Sm90WgmmaDecode, C^T = B A^T), compiled with
// -Xptxas -v by ptxas_check.cmake (label ptxas, no GPU): no spills, no wgmma serialization
// (C75xx), promoted (two pipelined partial-sum sets) and fast, for BlockMCols 8, 16, 32 and the
// 128 that the M = 128 bench entry uses (64 accumulators + 2 x 64 partial sums); Blockwise
// (WgmmaSwappedBlockScales: an A scale per accumulator column, two k-blocks' sets) at 8, 32
// and 64 (32 accumulators + 2 x 32 partial sums + 2 x 16 A scales), the widest the rules allow;
// the wide tiles 160, 192 and 256 (80 / 96 / 128 accumulators + two sets of a half or a quarter
// of the wgmma N: 195 / 226 / 232 registers promoted); the two-consumer tiles (Sm90WgmmaMidM)
// at 104, 128 and 192 columns, and Blockwise at 64.
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
using Decode8Promoted = GemmConfig<Sm90WgmmaDecode<8>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using Decode8Fast = GemmConfig<Sm90WgmmaDecode<8, e4m3fn, e5m2>, PerChannel, LayoutB::kNK,
                               Epilogue<e4m3fn, GeluTanh>, FastAccumulation>;
using Decode16Promoted = GemmConfig<Sm90WgmmaDecode<16, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
                                    Epilogue<bf16, GeluTanh>>;
using Decode16Fast =
    GemmConfig<Sm90WgmmaDecode<16>, PerTensor, LayoutB::kNK, Epilogue<float>, FastAccumulation>;
using Decode32Promoted =
    GemmConfig<Sm90WgmmaDecode<32>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>;
using Decode32Fast =
    GemmConfig<Sm90WgmmaDecode<32>, PerChannel, LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;
using Decode128Promoted = GemmConfig<Sm90WgmmaDecode<128>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
// wide swapped tiles (M = 129-256 in one tile row: the wgmma N follows M), promoted in chunks
using Decode160Promoted = GemmConfig<Sm90WgmmaDecode<160>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using Decode192Promoted =
    GemmConfig<Sm90WgmmaDecode<192>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using Decode256Promoted = GemmConfig<Sm90WgmmaDecode<256>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using Decode256Fast =
    GemmConfig<Sm90WgmmaDecode<256>, PerChannel, LayoutB::kNK, Epilogue<float>, FastAccumulation>;
using MidM104Promoted = GemmConfig<Sm90WgmmaMidM<104>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using MidM128Channel = GemmConfig<Sm90WgmmaMidM<128>, PerChannel, LayoutB::kNK, Epilogue<bf16>>;
using MidM192Promoted =
    GemmConfig<Sm90WgmmaMidM<192>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using MidM64Blockwise =
    GemmConfig<Sm90WgmmaMidM<64>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using Decode8Blockwise =
    GemmConfig<Sm90WgmmaDecode<8>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using Decode32Blockwise = GemmConfig<Sm90WgmmaDecode<32, e4m3fn, e5m2>, Blockwise<1, 128, 128>,
                                     LayoutB::kNK, Epilogue<float, GeluTanh>>;
using Decode64Blockwise =
    GemmConfig<Sm90WgmmaDecode<64>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using Decode64BlockRows =
    GemmConfig<Sm90WgmmaDecode<64>, Blockwise<128, 128, 128>, LayoutB::kNK, Epilogue<e4m3fn>>;

Status run_all(
    Gemm<Decode8Promoted>::Arguments const& a, Gemm<Decode8Fast>::Arguments const& b,
    Gemm<Decode16Promoted>::Arguments const& c, Gemm<Decode16Fast>::Arguments const& d,
    Gemm<Decode32Promoted>::Arguments const& e, Gemm<Decode32Fast>::Arguments const& f,
    Gemm<Decode128Promoted>::Arguments const& g, Gemm<Decode8Blockwise>::Arguments const& h,
    Gemm<Decode32Blockwise>::Arguments const& i, Gemm<Decode64Blockwise>::Arguments const& j,
    Gemm<Decode64BlockRows>::Arguments const& k, Gemm<Decode160Promoted>::Arguments const& l,
    Gemm<Decode192Promoted>::Arguments const& m, Gemm<Decode256Promoted>::Arguments const& n,
    Gemm<Decode256Fast>::Arguments const& o, Gemm<MidM104Promoted>::Arguments const& p,
    Gemm<MidM128Channel>::Arguments const& q, Gemm<MidM192Promoted>::Arguments const& r,
    Gemm<MidM64Blockwise>::Arguments const& s) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<MidM104Promoted>::run(p));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MidM128Channel>::run(q));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MidM192Promoted>::run(r));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MidM64Blockwise>::run(s));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode160Promoted>::run(l));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode192Promoted>::run(m));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode256Promoted>::run(n));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode256Fast>::run(o));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode8Promoted>::run(a));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode8Fast>::run(b));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode16Promoted>::run(c));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode16Fast>::run(d));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode32Promoted>::run(e));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode32Fast>::run(f));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode128Promoted>::run(g));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode8Blockwise>::run(h));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode32Blockwise>::run(i));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Decode64Blockwise>::run(j));
  return Gemm<Decode64BlockRows>::run(k);
}
}  // namespace fp8gemm
