// SPDX-License-Identifier: MIT
/// nvcc build of the Hopper building blocks: the never-launched kernel of sm90_device_kernels.hpp
/// is compiled for sm_90a (the inline PTX assembles) and sm_90 (every primitive traps), then the
/// host tests of sm90_primitives_test.cpp run with the CUDA backend's headers, the launch
/// attributes of arch::ExtendedLaunch (clusters, programmatic stream serialization) and which
/// kernels take the head start. No GPU.
#include "fp8gemm/fp8gemm.hpp"
#include "sm90_device_kernels.hpp"
#include "sm90_primitives_test.cpp"

namespace fp8gemm {
namespace {

// cudaLaunchKernelEx's attributes (arch::ExtendedLaunch): the cluster dimension when clusters are
// > 1, programmatic stream serialization when the kernel waits for its predecessor
// (kProgrammaticLaunch: the WGMMA kernel; the portable kernel does not). Host only: the
// constructor fills a struct, nothing is launched.
struct PlainKernel {
  static constexpr int kThreads = 384;
  static constexpr int kSharedBytes = 4096;
};
struct ProgrammaticKernel : PlainKernel {
  static constexpr bool kProgrammaticLaunch = true;
};
struct ClusteredProgrammaticKernel : ProgrammaticKernel {
  static constexpr int kClusterSize = 2;
};

TEST(Sm90Launch, ExtendedLaunchAttributes) {
  if (!arch::kProgrammaticLaunchEnabled) GTEST_SKIP() << "FP8GEMM_DISABLE_PROGRAMMATIC_LAUNCH";
  static_assert(
      arch::kernel_programmatic_launch<
          GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>::Kernel>::value);
  static_assert(!arch::kernel_programmatic_launch<
                GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>::Kernel>::value);

  arch::ExtendedLaunch<PlainKernel> const plain(5, 3, nullptr);
  EXPECT_EQ(plain.config.numAttrs, 0u);
  EXPECT_EQ(plain.config.gridDim.x, 5u);
  EXPECT_EQ(plain.config.gridDim.y, 3u);
  EXPECT_EQ(plain.config.blockDim.x, 384u);
  EXPECT_EQ(plain.config.dynamicSmemBytes, 4096u);

  arch::ExtendedLaunch<ProgrammaticKernel> const pdl(132, 1, nullptr);
  ASSERT_EQ(pdl.config.numAttrs, 1u);
  EXPECT_EQ(pdl.config.attrs[0].id, cudaLaunchAttributeProgrammaticStreamSerialization);
  EXPECT_EQ(pdl.config.attrs[0].val.programmaticStreamSerializationAllowed, 1);

  arch::ExtendedLaunch<ClusteredProgrammaticKernel> const both(132, 1, nullptr);
  ASSERT_EQ(both.config.numAttrs, 2u);
  EXPECT_EQ(both.config.attrs[0].id, cudaLaunchAttributeClusterDimension);
  EXPECT_EQ(both.config.attrs[0].val.clusterDim.x, 2u);
  EXPECT_EQ(both.config.attrs[0].val.clusterDim.y, 1u);
  EXPECT_EQ(both.config.attrs[1].id, cudaLaunchAttributeProgrammaticStreamSerialization);
}

// Which WGMMA kernels take the head start (the next tile's first k-block under this tile's
// epilogue, consumers at 240 registers): promoted cooperative tiles with one m64 row block per
// consumer (two partial-sum sets) and an activation in the epilogue; not the plain epilogue (it
// measured slower), not fast accumulation, not ping-pong, not two row blocks per consumer.
TEST(Sm90HeadStart, OnlyActivationsOnPipelinedPromotion) {
  using Gelu = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
  using BlockErf = GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK,
                              Epilogue<float, GeluErf>>;
  using Plain = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using FastGelu = GemmConfig<Sm90WgmmaFast<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>,
                              FastAccumulation>;
  using PingPongGelu =
      GemmConfig<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
                 PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
  using TwoRowBlocksGelu = GemmConfig<WgmmaTilePolicy<256, 128, 2, 4>, PerTensor, LayoutB::kNK,
                                      Epilogue<bf16, GeluTanh>>;
  static_assert(Gelu::Kernel::kHeadStart && BlockErf::Kernel::kHeadStart);
  static_assert(Gelu::Kernel::kConsumerRegisters == 240 && Gelu::Kernel::kProducerRegisters == 24);
  static_assert(!Plain::Kernel::kHeadStart && Plain::Kernel::kConsumerRegisters == 232 &&
                Plain::Kernel::kProducerRegisters == 40);
  static_assert(!FastGelu::Kernel::kHeadStart && !PingPongGelu::Kernel::kHeadStart &&
                !TwoRowBlocksGelu::Kernel::kHeadStart);
  SUCCEED();
}

}  // namespace
}  // namespace fp8gemm
