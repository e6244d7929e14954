// SPDX-License-Identifier: MIT
// Compile-fail case: OCP operands on gfx942.
// expect-error: gfx942 MFMA computes FNUZ fp8 (e4m3fnuz / e5m2fnuz): OCP e4m3fn / e5m2 bytes would
// expect-error: be read as different numbers
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config = GemmConfig<Cdna3Default<e4m3fn, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
