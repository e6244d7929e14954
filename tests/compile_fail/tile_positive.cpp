// SPDX-License-Identifier: MIT
// Compile-fail case: BlockM = 0.
// expect-error: tile sizes and wave counts must be positive
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<0, 256, 128, 4, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
