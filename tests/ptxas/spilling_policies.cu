// SPDX-License-Identifier: MIT
// The kernels ptxas spills a little in, each figure allowed up to ALLOW_SPILL_BYTES; the others
// are in default_policies.cu, where none is allowed.
//
// The grouped Blockwise 128 x 256 kernel (AutoGroupedGemm's choice above 64 rows per group),
// compiled with -Xptxas -v by ptxas_check.cmake (label ptxas, no GPU) and disassembled for the
// SASS check: no wgmma serialization, the K loop within its budget, and no wgmma descriptor moved
// from vector registers, which is how it ran 12-25 % slower unnoticed when the consumers began
// reading their K range from shared memory (docs/grouped.md). It is apart from
// default_policies.cu because ptxas spills in it (16 bytes of stack, 24 of spill stores, 52 of
// spill loads, none in its K loops: the tile's placement and the producer's setup), so this
// source allows each of those figures up to ALLOW_SPILL_BYTES; the other grouped kernels are in
// default_policies.cu, where none is allowed.
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
using GroupedLargeBlockwise =
    GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

Status run_grouped(GroupedGemm<GroupedLargeBlockwise>::Arguments const& a) {
  return GroupedGemm<GroupedLargeBlockwise>::run(a);
}

// Stream-K on the 128 x 256 tile, per-tensor (AutoGemm's sm90_wgmma_large_stream_k): 16 bytes of
// stack, 24 of spill stores and 28 of spill loads with nvcc 13, its K loop as the whole-tile
// kernel's (448 instructions per k-block, SASS); the other stream-K kernels spill nothing.
using StreamKLarge = GemmConfig<StreamK<Sm90WgmmaLarge<>>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
Status run_stream_k(Gemm<StreamKLarge>::Arguments const& a) {
  return Gemm<StreamKLarge>::run(a);
}
}  // namespace fp8gemm
