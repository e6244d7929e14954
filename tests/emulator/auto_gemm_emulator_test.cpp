// SPDX-License-Identifier: MIT
// AutoGemm on the host emulator: the CDNA targets' selections (policy and split-K as the model
// picks them for the MI355X / MI300X CU counts) run for small shapes and match the FP64
// reference within the bound tests/common/tolerance.hpp derives for the chosen GemmConfig.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "common/gemm_host_run.hpp"
#include "fp8gemm/device/auto_gemm.hpp"

namespace fp8gemm::test {
namespace {

/// Selects for c's shape with a workspace planned (so the model may split K), builds the chosen
/// candidate's GemmProblem (its tolerance counts that split), runs AutoGemm::run on it.
template <class A>
void expect_auto_matches_fp64(GemmCase c) {
  typename A::Arguments probe;
  probe.problem = {c.m, c.n, c.k};
  std::size_t const ws_bytes = A::workspace_size(probe);
  std::vector<float> workspace((ws_bytes + sizeof(float) - 1) / sizeof(float) + 1);
  probe.workspace = workspace.data();
  Choice const choice = A::select(probe);
  ASSERT_GE(choice.index, 0) << choice.reason;
  std::cout << "  " << A::explain(probe) << "\n";
  A::visit(choice.index, [&](auto tag) {
    using Config = typename decltype(tag)::type;
    c.split_k = choice.split_k;  // the bound counts the split's adds
    GemmProblem<Config> const p(c);
    std::vector<typename Config::ElementC> out(p.c_size());
    poison_host(out);
    float amax = -1.0f;
    auto const g = p.arguments(p.a_q.data(), p.b_q.data(), p.host_scale_a(), p.host_scale_b(),
                               p.cs.bias ? p.bias_f.data() : nullptr, out.data(), &amax);
    typename A::Arguments args;  // Gemm's fields one by one; split_k left to the selection
    args.problem = g.problem;
    args.a = g.a, args.lda = g.lda, args.b = g.b, args.ldb = g.ldb;
    args.scale_a = g.scale_a, args.scale_a_count = g.scale_a_count;
    args.scale_b = g.scale_b, args.scale_b_count = g.scale_b_count;
    args.epilogue = g.epilogue;
    args.workspace = workspace.data();
    Choice const again = A::select(args);
    ASSERT_EQ(again.index, choice.index);
    ASSERT_EQ(again.split_k, choice.split_k);
    Status const st = A::run(args);
    ASSERT_TRUE(st.ok()) << st.to_string();
    std::string report;
    EXPECT_TRUE(p.check(out, amax, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  });
}

using Cdna4Auto = AutoGemm<selection::Cdna4Target, e4m3fn, e4m3fn, PerChannel, LayoutB::kNK,
                           Epilogue<bf16, GeluTanh>>;
using Cdna4AutoBlockwise = AutoGemm<selection::Cdna4Target, e4m3fn, e4m3fn, Blockwise<1, 128, 128>,
                                    LayoutB::kNK, Epilogue<bf16>>;
using Cdna3Auto =
    AutoGemm<selection::Cdna3Target, e4m3fnuz, e4m3fnuz, PerTensor, LayoutB::kNK, Epilogue<fp16>>;

TEST(AutoGemmOnEmulator, Cdna4SelectionsMatchFp64) {
  selection::reset_for_testing();
  expect_auto_matches_fp64<Cdna4Auto>({1, 256, 512, 700});  // one tile on 256 CUs: split-K
  expect_auto_matches_fp64<Cdna4Auto>({300, 200, 1000, 701, Distribution::kOutliers});
  expect_auto_matches_fp64<Cdna4AutoBlockwise>({64, 256, 384, 702});  // Cdna4KBlocked
}

TEST(AutoGemmOnEmulator, Cdna3SelectionsMatchFp64) {
  selection::reset_for_testing();
  expect_auto_matches_fp64<Cdna3Auto>({1, 128, 256, 703});
  expect_auto_matches_fp64<Cdna3Auto>({17, 33, 65, 704});
  expect_auto_matches_fp64<Cdna3Auto>({256, 256, 256, 705, Distribution::kRowRanges});
}

}  // namespace
}  // namespace fp8gemm::test
