// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): L2 stream hints on a 2-CTA multicast policy.
// expect-error: kL2StreamHints: the L2 hints mark B as the operand a single tile row streams;
// expect-error: offered on unclustered policies without swapped operands only
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

// What a user writes: a tuning member shadowed in a derived policy.
struct HintedMulticast : Sm90WgmmaDefaultMulticastA<> {
  static constexpr bool kL2StreamHints = true;
};
using Config = GemmConfig<HintedMulticast, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
