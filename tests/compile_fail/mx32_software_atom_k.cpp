// SPDX-License-Identifier: MIT
// Compile-fail case: MX-32 on a 128-K atom that does not scale in hardware.
// expect-error: MX-32 scales on an atom without hardware E8M0 scaling are applied per 32 K, so the
// expect-error: atom's K must divide 32
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

/// The gfx950 16x16x128 atom with its hardware MX-32 scaling switched off.
struct UnscaledCdna4Atom : Cdna4Mma16x16x128<e4m3fn, e4m3fn> {
  static constexpr bool kHardwareMx32 = false;
};
using Config = GemmConfig<TilePolicy<256, 128, 128, 2, 2, UnscaledCdna4Atom>, Mx32, LayoutB::kNK,
                          Epilogue<bf16>>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the copies.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
