// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): 256 x 192 promoted, i.e. two m64 row blocks of 96
// accumulators per consumer thread (192) plus 96 partial sums (two row blocks promote with one
// partial-sum set, not in chunks); fast accumulation would fit.
// expect-error: WGMMA: accumulators (+ the promotion's partial sums) above 192 registers per
// expect-error: consumer thread leave too little of the 232 for addresses and scales: use
// expect-error: FastAccumulation or a smaller tile (128 x 256 promoted: one m64 row block per
// expect-error: consumer, promoted in chunks of N)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<WgmmaTilePolicy<256, 192, 2, 2>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
