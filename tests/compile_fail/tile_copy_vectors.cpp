// SPDX-License-Identifier: MIT
// Compile-fail case: a 16 x 32 A tile is 32 vectors of 16 bytes for 64 threads.
// expect-error: each thread must copy a whole number of 16-byte vectors of the A and B tiles
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<16, 16, 32, 1, 1, Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
