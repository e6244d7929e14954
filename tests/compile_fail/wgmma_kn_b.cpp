// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): B stored [K, N].
// expect-error: FP8 wgmma reads B K-major only: store B as [N, K] (LayoutB::kNK;
// expect-error: transpose_kn_to_nk_gpu / _host in quant/transpose.hpp converts a [K, N] weight
// expect-error: once), or use the portable policy Sm90Default, which reads [K, N]
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kKN, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
