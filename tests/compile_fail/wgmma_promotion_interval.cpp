// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): promotion every 256 K.
// expect-error: WGMMA policies promote once per 128-K block (PromoteEvery<128>, the default) or
// expect-error: never (FastAccumulation)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config =
    GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, PromoteEvery<256>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
