// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): 5 stages of (128 + 256) x 128 B = 240 KiB.
// expect-error: WgmmaTilePolicy: the stages do not fit the 227 KiB of shared memory a block may
// expect-error: use: shrink the tile or Stages
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<WgmmaTilePolicy<128, 256, 2, 5>, PerTensor, LayoutB::kNK, Epilogue<bf16>,
                          FastAccumulation>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
