// SPDX-License-Identifier: MIT
// Compile-fail case: a 96-K scale block with BlockK 64.
// expect-error: K-blocked scales: the scale block along K and BlockK must divide one another
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<Sm90Default<>, Blockwise<1, 128, 96>, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
