// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): 128 x 256 promoted, i.e. 128 accumulators plus 128 partial
// sums per consumer thread.
// expect-error: WGMMA: accumulators (+ the promotion's partial sums) above 192 registers per
// expect-error: consumer thread leave too little of the 232 for addresses and scales: use
// expect-error: FastAccumulation or a smaller tile (256 x 128 promoted, 128 x 256 fast)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Sm90WgmmaFast<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
