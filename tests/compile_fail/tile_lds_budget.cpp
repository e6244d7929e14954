// SPDX-License-Identifier: MIT
// Compile-fail case: 2 x (256 + 256) x 72 B = 72 KiB of LDS on gfx942 (64 KiB).
// expect-error: the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<TilePolicy<256, 256, 64, 4, 4, Cdna3Mma16x16x32<e4m3fnuz, e4m3fnuz>>,
                          PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
