// SPDX-License-Identifier: MIT
// Compile-fail case: FNUZ operands on gfx950.
// expect-error: gfx950 MFMA computes OCP fp8 (e4m3fn / e5m2): FNUZ e4m3fnuz / e5m2fnuz bytes
// expect-error: would be read as different numbers
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

using Config =
    GemmConfig<Cdna4Default<e4m3fnuz, e4m3fnuz>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
