// SPDX-License-Identifier: MIT
// Compile-fail case (Hopper WGMMA): TMA multicast of A with the ping-pong schedule.
// expect-error: WgmmaTilePolicy: TMA multicast needs the cooperative schedule: a multicast stage
// expect-error: is read by both CTAs' consumers of one tile pair, while ping-pong consumers read
// expect-error: different tiles from alternate stages, so the two CTAs' rings would not hold the
// expect-error: same k-blocks
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

using Config = GemmConfig<
    WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong, WgmmaMulticast::kA>,
    PerTensor, LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;

// What a user writes: instantiating run() instantiates the policy, the mainloop and the kernel.
Status run(Gemm<Config>::Arguments const& args) {
  return Gemm<Config>::run(args);
}
