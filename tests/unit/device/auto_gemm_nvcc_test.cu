// SPDX-License-Identifier: MIT
// AutoGemm<Sm90Target>'s selection in an nvcc build (label host: no GPU needed, nothing is
// launched). There the WGMMA candidates' feasibility is the real supports<> check, with the TMA
// encoder compiled in, where the host build's WGMMA kernels refuse before their shape checks
// (auto_gemm_selection_test.cpp). Every per-tensor and per-channel range of the shipped table is
// reached at both ends and picks what it names; a stream-K entry only with a workspace, and without
// one the model decides and says why. (A stream-K entry once fell to the model in every nvcc
// build: supports<> gave no workspace but for split-K, so every stream-K candidate looked
// infeasible; the host test could not see it.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

// The choices asserted here are the shipped table's and the model's: a table file the caller's
// environment names (FP8GEMM_TABLE) must not change them. Unset before the first choice.
[[maybe_unused]] int const kNoTableFile = (unsetenv("FP8GEMM_TABLE"), 0);

template <class Auto, selection::GranularityClass G>
void expect_table_reached() {
  selection::TableView const table = selection::Sm90Target::table();
  std::vector<unsigned char> marker(16);  // "a workspace is given": select() never reads it
  int ranges = 0, streamed = 0;
  for (std::size_t e = 0; e < table.size; ++e) {
    selection::TableEntry const& t = table.entries[e];
    if (t.granularity != G || t.epilogue != selection::EpilogueClass::kIdentity ||
        t.accumulation != selection::AccumulationClass::kPromoted)
      continue;
    ++ranges;
    bool const stream_k = std::string(t.candidate).find("_stream_k") != std::string::npos;
    streamed += stream_k;
    for (int m : {t.m_lo, t.m_hi}) {
      typename Auto::Arguments a;
      a.problem = {m, t.n, t.k};
      a.sm_count = table.sm_count;
      a.workspace = marker.data();
      Choice c = Auto::select(a);
      EXPECT_EQ(c.tier, Tier::kTable) << m << " x " << t.n << " x " << t.k << ": " << c.reason;
      EXPECT_EQ(c.short_name, t.candidate) << m << " x " << t.n << " x " << t.k;
      EXPECT_EQ(c.split_k, t.split_k);
      if (!stream_k) continue;
      EXPECT_TRUE(Auto::candidate_needs_workspace(c.index));
      a.workspace = nullptr;
      EXPECT_GT(Auto::workspace_size(a), 0u) << "planned with a workspace: the stream-K bytes";
      c = Auto::select(a);
      EXPECT_EQ(c.tier, Tier::kModel) << c.reason;
      EXPECT_FALSE(Auto::candidate_needs_workspace(c.index)) << c.short_name;
      EXPECT_NE(c.reason.find("the table's " + std::string(t.candidate) + " needs a workspace"),
                std::string::npos)
          << c.reason;
    }
  }
  EXPECT_GT(ranges, 100);
  EXPECT_GT(streamed, 10) << "the table's stream-K entries";
}

TEST(AutoGemmNvcc, EveryTableRangeIsReachedPerTensor) {
  expect_table_reached<
      AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerTensor, LayoutB::kNK, Epilogue<bf16>>,
      selection::GranularityClass::kPerTensor>();
}

TEST(AutoGemmNvcc, EveryTableRangeIsReachedPerChannel) {
  expect_table_reached<
      AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerChannel, LayoutB::kNK, Epilogue<bf16>>,
      selection::GranularityClass::kPerChannel>();
}

}  // namespace
}  // namespace fp8gemm
