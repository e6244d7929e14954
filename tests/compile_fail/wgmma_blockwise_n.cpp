// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): B's scale block of 96 columns against 128-column tiles.
// expect-error: Blockwise scales on the WGMMA kernel: B's scale block along N must be a multiple of
// expect-error: 8 that divides BlockN or is a multiple of it (each group of 8 accumulator columns
// expect-error: then has one B scale)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 96, 128>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
