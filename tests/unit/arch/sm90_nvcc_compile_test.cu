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

// The WGMMA main loop indexes K-blocked scale arrays with 32-bit offsets: a problem whose A scales
// number 2^31 or more (M = 2^21 rows x K = 2^17, 1024 K blocks: 2^31 scales) is refused with the
// counts; one row less fits; B's scales (2^29 columns in blocks of 256) likewise. Host only:
// can_implement reads sizes and never the (dummy) pointers.
TEST(Sm90WgmmaMainloop, RefusesScaleArraysPast32BitOffsets) {
  using Mainloop = TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, 128>;
  auto const* dummy = reinterpret_cast<e4m3fn const*>(std::uintptr_t{1} << 12);
  auto const* scales = reinterpret_cast<float const*>(std::uintptr_t{1} << 12);
  constexpr int kK = 1 << 17;
  Mainloop::Arguments args;
  args.a = {dummy, kK, 1 << 21, kK};
  args.b = {dummy, kK, 256, kK};
  args.scale_a = {scales, kK / 128, 1 << 21};
  args.scale_b = {scales, kK / 128, 256};
  Status const refused = Mainloop::can_implement(args);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kErrorInvalidSize);
  EXPECT_NE(refused.message().find("2147483648"), std::string::npos) << refused.message();
  args.a.rows = (1 << 21) - 1;
  args.scale_a.extent = (1 << 21) - 1;
  Status const fits = Mainloop::can_implement(args);
  EXPECT_TRUE(fits.ok()) << fits.message();
  // B's bound the same way, with a B scale block wider than the tile (one scale per 256 columns)
  using WideB = TmaWgmmaMainloop<Sm90WgmmaDefault<>, Blockwise<1, 256, 128>, 128>;
  WideB::Arguments b_args;
  b_args.a = {dummy, kK, 256, kK};
  b_args.b = {dummy, kK, 1 << 29, kK};  // 2^21 B scale rows x 2^10 K blocks = 2^31
  b_args.scale_a = {scales, kK / 128, 256};
  b_args.scale_b = {scales, kK / 128, 1 << 29};
  Status const b_refused = WideB::can_implement(b_args);
  ASSERT_FALSE(b_refused.ok());
  EXPECT_NE(b_refused.message().find("B's 2147483648"), std::string::npos) << b_refused.message();
}

}  // namespace
}  // namespace fp8gemm
