// SPDX-License-Identifier: MIT
/// nvcc build of the Hopper building blocks: the never-launched kernel of sm90_device_kernels.hpp
/// is compiled for sm_90a (the inline PTX assembles) and sm_90 (every primitive traps), then the
/// host tests of sm90_primitives_test.cpp run with the CUDA backend's headers, and the launch
/// attributes of arch::ExtendedLaunch (clusters, programmatic stream serialization). No GPU.
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

}  // namespace
}  // namespace fp8gemm
