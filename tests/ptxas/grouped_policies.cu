// SPDX-License-Identifier: MIT
// The grouped WGMMA kernels of AutoGroupedGemm's two-consumer candidates, compiled with -Xptxas -v
// by ptxas_check.cmake (label ptxas, no GPU) and disassembled for the SASS check: no wgmma
// serialization, the K loop within its budget, and no wgmma descriptor moved from vector
// registers, which is how the Blockwise 128 x 256 kernel ran 12-25 % slower unnoticed when the
// consumers began reading their K range from shared memory (docs/grouped.md). ptxas spills a few
// registers in the two-consumer grouped Blockwise kernels (outside their K loops: the tile's
// placement and the producer's setup), so this source allows spills up to a bound
// (ALLOW_SPILL_BYTES) where default_policies.cu allows none. The one-consumer 64 x 64 grouped
// Blockwise kernel is left out: it moves its descriptors and runs faster so (default_policies.cu).
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
using GroupedLargeBlockwise =
    GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using GroupedDefaultBlockwise =
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using GroupedMediumMBlockwise =
    GemmConfig<Sm90WgmmaMediumM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using GroupedLargePerTensor =
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;

Status run_grouped(GroupedGemm<GroupedLargeBlockwise>::Arguments const& a,
                   GroupedGemm<GroupedDefaultBlockwise>::Arguments const& b,
                   GroupedGemm<GroupedMediumMBlockwise>::Arguments const& c,
                   GroupedGemm<GroupedLargePerTensor>::Arguments const& d) {
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedLargeBlockwise>::run(a));
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedDefaultBlockwise>::run(b));
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedMediumMBlockwise>::run(c));
  return GroupedGemm<GroupedLargePerTensor>::run(d);
}
}  // namespace fp8gemm
