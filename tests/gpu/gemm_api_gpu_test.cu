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

// Split-K: each run within the derived bound of FP64, bit-identical from run to run, and as close
// to the unsplit GEMM of the same inputs as the two bounds allow.
TEST(GemmSplitK, DeterministicAndMatchesUnsplit) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase c{200, 300, 4096, 5};
  c.split_k = 5;
  EXPECT_TRUE(split_k_consistent<C32>(c, run_on_gpu<C32>));
  GemmProblem<C32> const p(c);
  auto const args = p.arguments(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(Gemm<C32>::workspace_size(args), std::size_t(5) * 200 * 300 * 4);
}

}  // namespace
}  // namespace fp8gemm::test
