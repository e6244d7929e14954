// SPDX-License-Identifier: MIT
// Compile-fail case: mk_kn_mn: a 160 x 128 B tile is 320 blocks of 4 x 16 for 256 threads.
// expect-error: mk_kn_mn: B is copied as 4 (k) x 16 (n) blocks, whole blocks per thread (or at most
// expect-error: one per thread when the tile has fewer blocks than threads)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<64, 160, 128, 2, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>>,
                          PerTensor, LayoutB::kKN, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
