// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA, swapped operands): Blockwise scales on a decode policy.
// expect-error: Blockwise scales are not offered by the swapped-operand policies
// expect-error: (WgmmaSwapABPolicy, Sm90WgmmaDecode): their accumulator rows are columns of C; use
// expect-error: Sm90WgmmaSmallM for Blockwise decode
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config =
    GemmConfig<Sm90WgmmaDecode<16>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
