// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA, swapped operands): 128 rows of B per tile (two m64 wgmmas).
// expect-error: WgmmaSwapABPolicy: BlockNRows must be 64 (one m64 wgmma of B rows per k-step),
// expect-error: BlockMCols a wgmma N the atom has (8, 16, 32, 64, 72, 80, 88, 96, 128, 144,
// expect-error: 160, 176, 192 or 256), one consumer
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config =
    GemmConfig<WgmmaSwapABPolicy<128, 16, 1, 8>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
