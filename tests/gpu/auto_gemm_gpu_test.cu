// SPDX-License-Identifier: MIT
// AutoGemm<Sm90Target> on the H200 (label gpu): the device's SM count is asked, each shape's
// choice (decode, small-M, medium-M, 128 x 128, 128 x 256, split-K, stream-K) runs and matches
// FP64 within the bound derived for the chosen GemmConfig.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "fp8gemm/device/auto_gemm.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

// The choices asserted here are the shipped table's and the model's: a table file the caller's
// environment names (FP8GEMM_TABLE) must not change them. Unset before the first choice.
[[maybe_unused]] int const kNoTableFile = (unsetenv("FP8GEMM_TABLE"), 0);

using Sm90Auto =
    AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerTensor, LayoutB::kNK, Epilogue<bf16>>;

/// The choice for c's shape (workspace planned), then run_on_gpu of the chosen GemmConfig through
/// AutoGemm::run: the harness's Gemm arguments copied field by field.
::testing::AssertionResult run_auto(GemmCase c, std::string* report) {
  Sm90Auto::Arguments probe;
  probe.problem = {c.m, c.n, c.k};
  std::size_t const ws = Sm90Auto::workspace_size(probe);
  DeviceBuffer workspace;
  FP8GEMM_TEST_CUDA(workspace.allocate(ws + 256));
  probe.workspace = workspace.ptr;
  Choice const choice = Sm90Auto::select(probe);
  if (choice.index < 0) return ::testing::AssertionFailure() << choice.reason;
  std::cout << "  " << Sm90Auto::explain(probe) << "\n";
  return Sm90Auto::visit(choice.index, [&](auto tag) -> ::testing::AssertionResult {
    using Config = typename decltype(tag)::type;
    c.split_k = choice.split_k;
    GemmProblem<Config> const p(c);
    DeviceBuffer a, b, sa, sb, bias, out, amax;
    FP8GEMM_TEST_CUDA(upload(a, p.a_q));
    FP8GEMM_TEST_CUDA(upload(b, p.b_q));
    FP8GEMM_TEST_CUDA(upload(sa, p.sa_f));
    FP8GEMM_TEST_CUDA(upload(sb, p.sb_f));
    FP8GEMM_TEST_CUDA(upload(bias, p.bias_f));
    FP8GEMM_TEST_CUDA(out.allocate(p.c_size() * sizeof(bf16)));
    FP8GEMM_TEST_CUDA(poison_device(out.as<bf16>(), p.c_size()));
    FP8GEMM_TEST_CUDA(amax.allocate(sizeof(float)));
    auto const g = p.arguments(a.as<e4m3fn>(), b.as<e4m3fn>(), sa.as<float>(), sb.as<float>(),
                               bias.as<float>(), out.as<bf16>(), amax.as<float>());
    Sm90Auto::Arguments args;
    args.problem = g.problem;
    args.a = g.a, args.lda = g.lda, args.b = g.b, args.ldb = g.ldb;
    args.scale_a = g.scale_a, args.scale_a_count = g.scale_a_count;
    args.scale_b = g.scale_b, args.scale_b_count = g.scale_b_count;
    args.epilogue = g.epilogue;
    args.workspace = workspace.ptr;
    Choice const again = Sm90Auto::select(args);
    if (again.index != choice.index || again.split_k != choice.split_k)
      return ::testing::AssertionFailure() << "the call chose otherwise: " << again.reason;
    Status const st = Sm90Auto::run(args, nullptr);
    if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
    FP8GEMM_TEST_CUDA(cudaDeviceSynchronize());
    std::vector<bf16> host(p.c_size());
    float amax_h = 0;
    FP8GEMM_TEST_CUDA(download(host, out));
    FP8GEMM_TEST_CUDA(cudaMemcpy(&amax_h, amax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
    return p.check(host, amax_h, report);
  });
}

TEST(AutoGemmOnGpu, Sm90ChoicesMatchFp64) {
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_EQ(Sm90Auto::device_sm_count(), sms);
  for (GemmCase c :
       {GemmCase{1, 8192, 8192, 800}, GemmCase{16, 8192, 4096, 801}, GemmCase{32, 8192, 2048, 802},
        GemmCase{64, 8192, 1024, 803}, GemmCase{100, 8192, 1024, 804},
        GemmCase{256, 8192, 512, 805}, GemmCase{2048, 4096, 256, 806},
        GemmCase{16, 4096, 8192, 807}, GemmCase{77, 1000, 700, 808}}) {
    std::string report;
    EXPECT_TRUE(run_auto(c, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  }
}

/// A shape whose table entry is a stream-K candidate (2048 x 2112 x 7168: 176 tiles of 128 x 192,
/// 1.33 waves on 132 SMs; the table names sm90_wgmma_128x192_stream_k there): the choice, given
/// the workspace, is that entry, and it matches FP64.
TEST(AutoGemmOnGpu, Sm90StreamKChoiceMatchesFp64) {
  Sm90Auto::Arguments probe;
  probe.problem = {2048, 2112, 7168};
  std::vector<unsigned char> marker(16);
  probe.workspace = marker.data();
  Choice const c = Sm90Auto::select(probe);
  if (c.sm_count != 132) GTEST_SKIP() << "the table is for 132 SMs; this device has " << c.sm_count;
  EXPECT_EQ(c.tier, Tier::kTable) << c.reason;
  EXPECT_NE(c.short_name.find("_stream_k"), std::string::npos) << c.reason;
  std::string report;
  EXPECT_TRUE(run_auto(GemmCase{2048, 2112, 7168, 809}, &report));
  std::cout << "  " << report << "\n";
}

}  // namespace
}  // namespace fp8gemm::test
