// SPDX-License-Identifier: MIT
// Compile-fail case: Blockwise on the 8-wave gfx950 default: two sets of 128 accumulators.
// expect-error: promoted/K-blocked accumulation needs a second set of accumulators, and with it
// expect-error: more than 3/4 of the registers a thread may use at this block size: use fewer waves
// expect-error: per SIMD or a smaller wave tile (gfx950 with Blockwise scales: Cdna4KBlocked)
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<Cdna4Default<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
