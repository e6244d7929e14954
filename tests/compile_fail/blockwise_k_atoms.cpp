// SPDX-License-Identifier: MIT
// Compile-fail case: a 64-K scale block on the 16x16x128 MFMA (issue 12's case).
// expect-error: Blockwise scales: the K-scale block (Blockwise<.., .., BlockK>) must be a multiple
// expect-error: of the atom's K (Atom::kK: 128 for gfx950's 16x16x128 MFMA, 64 for its 32x32x64, 32
// expect-error: for gfx942's 16x16x32 and Hopper's atom, 16 for gfx942's 32x32x16)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<64, 64, 128, 2, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>, 2>,
                          Blockwise<4, 32, 64>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
