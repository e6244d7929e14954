// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): Blockwise with a K block of 64.
// expect-error: Blockwise scales on the WGMMA kernel: the K block must be 128 (Blockwise<bm,
// expect-error: bn, 128>), the k-block at which it promotes
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 64>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
