// SPDX-License-Identifier: MIT
// can_implement: every refusal names its check; workspace_size; split-K determinism (label gpu).
#include <gtest/gtest.h>

#include "common/can_implement_cases.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

TEST(GemmCanImplement, ExplainsEveryRefusal) {
  check_every_refusal<GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<GemmConfig<Sm90Default<>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>>();
  check_every_refusal<
      GemmConfig<Sm90SmallM<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>>();
}

// A CDNA policy compiles into an nvcc build (its MFMA is a trap there) and is refused at run time.
TEST(GemmCanImplement, RefusesAnAmdPolicyOnNvidia) {
  using Cdna4 = GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Cdna3 = GemmConfig<Cdna3Default<>, PerChannel, LayoutB::kKN, Epilogue<float, GeluErf>>;
  for (Status const& s : {Gemm<Cdna4>::run(valid_arguments_64<Cdna4>()), Gemm<Cdna3>::run(valid_arguments_64<Cdna3>())}) {
    EXPECT_EQ(s.code(), StatusCode::kErrorUnsupported) << s.to_string();
    EXPECT_NE(s.message().find("(AMD) but this build runs on an NVIDIA GPU"), std::string::npos) << s.message();
  }
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
