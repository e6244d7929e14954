// SPDX-License-Identifier: MIT
// Compile-fail case: a 192-K scale block on Cdna4KBlocked (16x16x128 MFMA, BlockK 128), B stored
// [N, K]: the shape the CDNA ping-pong mainloop once took, where each 128-K tile used one scale.
// expect-error: Blockwise scales: the K-scale block (Blockwise<.., .., BlockK>) must be a multiple
// expect-error: of the atom's K (Atom::kK: 128 for gfx950's 16x16x128 MFMA, 64 for its 32x32x64, 32
// expect-error: for gfx942's 16x16x32 and Hopper's atom, 16 for gfx942's 32x32x16)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Cdna4KBlocked<>, Blockwise<1, 128, 192>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
