// SPDX-License-Identifier: MIT
// Compile-fail case: a 96-K scale block on Cdna3Default (BlockK 64), B stored [N, K]: the shape
// the CDNA ping-pong mainloop once took, where each 64-K tile used one scale block's scale.
// expect-error: K-blocked scales: the scale block along K and BlockK must divide one another
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Cdna3Default<>, Blockwise<1, 128, 96>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
