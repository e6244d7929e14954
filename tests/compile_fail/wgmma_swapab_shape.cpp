// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA, swapped operands): 128 rows of B per tile with one consumer
// (two m64 wgmmas each; two consumers take 64 rows each).
// expect-error: WgmmaSwapABPolicy: one or two consumers, each with 64 rows of B (one m64 wgmma
// expect-error: per k-step: BlockNRows = 64 x Consumers), and BlockMCols a wgmma N the atom has
// expect-error: (8, 16, 32, 64, 72, 80, 88, 96, 104, 112, 128, 144, 160, 176, 192 or 256)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config =
    GemmConfig<WgmmaSwapABPolicy<128, 16, 1, 8>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
