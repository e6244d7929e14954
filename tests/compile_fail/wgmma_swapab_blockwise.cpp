// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA, swapped operands): Blockwise scales on the 128-column decode
// policy, whose A scales (one per accumulator column) do not fit beside its accumulators.
// expect-error: Blockwise scales with swapped operands (WgmmaSwapABPolicy, Sm90WgmmaDecode): at
// expect-error: most 64 columns of A (each accumulator column, a row of C, holds its own A scale:
// expect-error: with 128 they and their loads do not fit beside the accumulators, ptxas spills),
// expect-error: and B's scale block along N a multiple of a consumer's 64 rows of N (one B scale
// expect-error: per consumer and k-block)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config =
    GemmConfig<Sm90WgmmaDecode<128>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
