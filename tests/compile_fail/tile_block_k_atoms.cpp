// SPDX-License-Identifier: MIT
// Compile-fail case: BlockK 64 on the 16x16x128 MFMA.
// expect-error: BlockK must be a multiple of the atom's K
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<256, 256, 64, 4, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
