// SPDX-License-Identifier: MIT
// Control for the compile-fail cases: valid neighbours of several of them compile (a broken include
// path, or a rule that refuses too much, fails here).
#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;
using namespace fp8gemm::arch;

/// Instantiates Gemm<Config>::run, and with it the policy, the mainloop and the copies, per Config.
template <class... Configs>
void instantiate_run() {
  (static_cast<void>(&Gemm<Configs>::run), ...);
}

/// A WGMMA policy derived to change a tuning member: still the TMA + WGMMA kernel .
struct SmallMFetch256 : Sm90WgmmaSmallM<> {
  static constexpr TmaL2Promotion kL2Promotion = TmaL2Promotion::k256B;
};
static_assert(IsWgmmaPolicy<SmallMFetch256>::value,
              "a struct derived from WgmmaTilePolicy is a WGMMA policy");

using Cdna4Small = TilePolicy<64, 64, 128, 2, 2, Cdna4Mma16x16x128<e4m3fn, e4m3fn>, 2>;
template void instantiate_run<
    GemmConfig<Cdna4Small, Blockwise<4, 32, 128>, LayoutB::kNK, Epilogue<bf16>>,  // issue 12's, K
                                                                                  // 128
    GemmConfig<Cdna4Small, Mx32, LayoutB::kKN, Epilogue<e4m3fn>>,
    GemmConfig<Cdna4KBlocked<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>,
    GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kKN, Epilogue<float, GeluTanh>>,
    GemmConfig<Cdna3Default<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<fp16>>,
    GemmConfig<Cdna3Default<>, Mx32, LayoutB::kNK, Epilogue<e4m3fnuz>>,
    GemmConfig<Sm90Default<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>,
    GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, PromoteEvery<64>>,
    GemmConfig<Sm90SmallM<>, Mx32, LayoutB::kKN, Epilogue<float>>,
    // the Hopper TMA + WGMMA kernel: each default, K-blocked scales, an fp8 output
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>,
    GemmConfig<Sm90WgmmaLarge<e5m2, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>,
               FastAccumulation>,
    GemmConfig<Sm90WgmmaSmallM<>, PerTensor, LayoutB::kNK, Epilogue<float>>,
    GemmConfig<SmallMFetch256, PerTensor, LayoutB::kNK, Epilogue<bf16>>,
    // the swapped-operand decode policies (C^T = B A^T)
    GemmConfig<Sm90WgmmaDecode<8>, PerTensor, LayoutB::kNK, Epilogue<bf16>>,
    GemmConfig<Sm90WgmmaDecode<16, e5m2, e4m3fn>, PerChannel, LayoutB::kNK,
               Epilogue<e4m3fn, GeluTanh>, FastAccumulation>,
    GemmConfig<Sm90WgmmaDecode<32>, PerChannel, LayoutB::kNK, Epilogue<float, GeluErf>>>();
