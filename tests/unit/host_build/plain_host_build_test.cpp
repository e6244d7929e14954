// SPDX-License-Identifier: MIT
// A plain host build (no GPU runtime, emulator not enabled): the library compiles without the
// emulator (no fibers, no threads), Gemm's argument checks work, and run() refuses to launch with
// a message that says how to get a GPU build or the emulator.
#include <gtest/gtest.h>

#include <string>

#include "fp8gemm/fp8gemm.hpp"

#if defined(FP8GEMM_EMULATOR) || defined(FP8GEMM_HAS_GPU_RUNTIME)
#error "this test must be a plain host build: no GPU runtime, FP8GEMM_ENABLE_EMULATOR not defined"
#endif

namespace fp8gemm {
namespace {

using Config =
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>;

Gemm<Config>::Arguments arguments(float* c) {
  alignas(16) static e4m3fn a[64 * 64], b[64 * 64];
  static float sa = 1.0f, sb = 1.0f;
  Gemm<Config>::Arguments args;
  args.problem.m = args.problem.n = args.problem.k = 64;
  args.a = a, args.lda = 64, args.b = b, args.ldb = 64;
  args.scale_a = &sa, args.scale_b = &sb, args.scale_a_count = 1, args.scale_b_count = 1;
  args.epilogue.c = c, args.epilogue.ldc = 64;
  return args;
}

TEST(PlainHostBuild, ArgumentChecksWorkAndRunRefusesToLaunch) {
  static float c[64 * 64];
  for (float& x : c) x = -7.0f;  // poison: nothing may be written
  auto args = arguments(c);
  args.lda = 63;
  Status s = Gemm<Config>::can_implement(args);
  EXPECT_EQ(s.code(), StatusCode::kErrorLeadingDimension) << s.to_string();

  args = arguments(c);
  s = Gemm<Config>::run(args);
  EXPECT_EQ(s.code(), StatusCode::kErrorUnsupported) << s.to_string();
  EXPECT_NE(s.message().find("FP8GEMM_ENABLE_EMULATOR"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("fp8gemm::emulator"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("gfx950"), std::string::npos) << s.message();
  for (float x : c) ASSERT_EQ(x, -7.0f);
}

}  // namespace
}  // namespace fp8gemm
