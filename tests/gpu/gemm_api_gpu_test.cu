// SPDX-License-Identifier: MIT
// can_implement: every refusal names its check; workspace_size; split-K determinism (label gpu).
#include <gtest/gtest.h>

#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

using Config = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using G = Gemm<Config>;

G::Arguments valid_arguments() {
  alignas(16) static e4m3fn a[64 * 64], b[64 * 64];
  static float sa[64], sb[64];
  static bf16 c[64 * 64];
  G::Arguments args;
  args.m = 64, args.n = 64, args.k = 64;
  args.a = a, args.lda = 64, args.b = b, args.ldb = 64;
  args.scale_a = sa, args.scale_a_count = 64, args.scale_b = sb, args.scale_b_count = 64;
  args.epilogue.c = c, args.epilogue.ldc = 64;
  return args;
}

void expect_refused(G::Arguments const& args, StatusCode code, char const* phrase) {
  Status const s = G::can_implement(args);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(phrase), std::string::npos) << "message: " << s.message();
}

TEST(GemmCanImplement, ExplainsEveryRefusal) {
  ASSERT_TRUE(G::can_implement(valid_arguments()).ok()) << G::can_implement(valid_arguments()).to_string();
  auto args = valid_arguments();
  args.m = 0;
  expect_refused(args, StatusCode::kErrorInvalidSize, "M, N and K must be >= 1");
  args = valid_arguments(), args.a = nullptr;
  expect_refused(args, StatusCode::kErrorNullPointer, "A is null");
  args = valid_arguments(), args.epilogue.c = nullptr;
  expect_refused(args, StatusCode::kErrorNullPointer, "C is null");
  args = valid_arguments(), args.lda = 63;
  expect_refused(args, StatusCode::kErrorLeadingDimension, "lda (63) must be >= K (64)");
  args = valid_arguments(), args.epilogue.ldc = 10;
  expect_refused(args, StatusCode::kErrorLeadingDimension, "ldc (10)");
  args = valid_arguments(), args.a = args.a + 1;
  expect_refused(args, StatusCode::kErrorMisaligned, "16-byte aligned");
  args = valid_arguments(), args.lda = 72;
  expect_refused(args, StatusCode::kErrorMisaligned, "lda=72");
  args = valid_arguments(), args.scale_a_count = 63;
  expect_refused(args, StatusCode::kErrorScaleShape, "expected 64 x 1 = 64 values, got 63");
  args = valid_arguments(), args.split_k = 5;
  expect_refused(args, StatusCode::kErrorInvalidArgument, "split_k must be in [1, ceil(K / BlockK) = 1]");
}

TEST(GemmSplitK, DeterministicAndMatchesUnsplit) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase c{200, 300, 4096, 5};
  c.split_k = 5;
  GemmProblem<C32> const p(c);
  EXPECT_TRUE(run_on_gpu(p));
  EXPECT_TRUE(run_on_gpu(p));  // and again: same bound (bitwise identity is checked below)
  DeviceBuffer a, b, sa, sb, out, ws;
  ASSERT_EQ(upload(a, p.a_q), cudaSuccess);
  ASSERT_EQ(upload(b, p.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa, p.sa_f), cudaSuccess);
  ASSERT_EQ(upload(sb, p.sb_f), cudaSuccess);
  ASSERT_EQ(out.allocate(p.c_size() * sizeof(float)), cudaSuccess);
  auto args = p.arguments(a.as<e4m3fn>(), b.as<e4m3fn>(), sa.as<float>(), sb.as<float>(), nullptr, out.as<float>(), nullptr);
  args.epilogue.bias = nullptr;
  ASSERT_EQ(ws.allocate(Gemm<C32>::workspace_size(args)), cudaSuccess);
  args.workspace = ws.ptr;
  std::vector<float> first(p.c_size()), second(p.c_size());
  ASSERT_TRUE(Gemm<C32>::run(args).ok());
  ASSERT_EQ(cudaMemcpy(first.data(), out.ptr, first.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_TRUE(Gemm<C32>::run(args).ok());
  ASSERT_EQ(cudaMemcpy(second.data(), out.ptr, second.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(0, std::memcmp(first.data(), second.data(), first.size() * 4)) << "split-K is not deterministic";
  EXPECT_EQ(Gemm<C32>::workspace_size(args), std::size_t(5) * 200 * 300 * 4);
}

}  // namespace
}  // namespace fp8gemm::test
