// SPDX-License-Identifier: MIT
// Compile-fail case: promotion every 48 K on a 32-K atom.
// expect-error: promotion interval (PromoteEvery<K>) must be a multiple of the atom's K
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, PromoteEvery<48>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
