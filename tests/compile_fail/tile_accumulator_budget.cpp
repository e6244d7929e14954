// SPDX-License-Identifier: MIT
// Compile-fail case: 128 x 128 wave tiles: 256 FP32 accumulators per lane.
// expect-error: too many FP32 accumulators per thread for this target (each K-blocked or promoted
// expect-error: accumulator also needs a partial-sum copy): use more waves or a smaller tile
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<256, 256, 128, 2, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
