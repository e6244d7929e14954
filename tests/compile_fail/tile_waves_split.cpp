// SPDX-License-Identifier: MIT
// Compile-fail case: BlockM 33 over 2 waves (every other rule holds: 16-row wave tiles, 33 x 1024
// bytes of A = 2112 vectors for 64 threads, 83 KiB of LDS).
// expect-error: the block tile must split evenly over the waves
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<33, 8, 1024, 2, 1, Sm90MmaFp8ViaF16<e4m3fn, e4m3fn>, 2>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
