// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): MX-32 scales.
// expect-error: MX-32 scales are not offered by the WGMMA kernel (one scale per 32 K would be a
// expect-error: promotion per wgmma): use the portable policy Sm90Default for Mx32 on Hopper
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<Sm90WgmmaDefault<>, Mx32, LayoutB::kNK, Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
