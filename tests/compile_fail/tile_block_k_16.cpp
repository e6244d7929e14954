// SPDX-License-Identifier: MIT
// Compile-fail case: BlockK 40 (the shipped atoms' K are multiples of 16, so the rule that BlockK
// be a multiple of the atom's K fails too).
// expect-error: BlockK must be a multiple of 16: global loads move 16 bytes
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<128, 256, 40, 2, 2, Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
