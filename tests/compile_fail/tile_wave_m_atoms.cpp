// SPDX-License-Identifier: MIT
// Compile-fail case: a 24-row wave tile on a 16-row atom.
// expect-error: the wave tile's M extent must be a whole number of atoms (Atom::kM)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<24, 16, 128, 1, 1, Cdna4Mma16x16x128<e4m3fn, e4m3fn>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
