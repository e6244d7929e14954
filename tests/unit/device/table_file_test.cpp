// SPDX-License-Identifier: MIT
// Measured tables read at run time (device/selection/table_file.hpp, selection::load_table,
// FP8GEMM_TABLE): the parser refuses every malformed line with its file and line; a loaded table
// decides before the target's own where the call plans for its SM count, and only there; a
// table-file error fails every AutoGemm call in words; reset_for_testing drops loaded tables.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

using selection::LoadedTable;
using Auto =
    AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using AutoChannel =
    AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerChannel, LayoutB::kNK, Epilogue<bf16>>;
// run() through a target whose kernels a host build instantiates cleanly (the emulator's CDNA4)
using AutoCdna4 =
    AutoGemm<selection::Cdna4Target, e4m3fn, e4m3fn, PerChannel, LayoutB::kNK, Epilogue<bf16>>;

constexpr char const* kHeader =
    "# written by hand for this test\n"
    "target,sm90\n"
    "sm_count,114\n"
    "provenance,test GPU, 114 SMs, invented entries\n"
    "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k\n";

Status parse(std::string const& text, LoadedTable* t) {
  std::istringstream in(text);
  return selection::parse_table(in, "t.csv", t);
}

std::string write_file(std::string const& name, std::string const& text) {
  std::string const path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

Auto::Arguments problem(int m, int n, int k, int sms) {
  Auto::Arguments a;
  a.problem = {m, n, k};
  a.sm_count = sms;
  return a;
}

struct TableFileTest : ::testing::Test {
  void SetUp() override {
    unsetenv("FP8GEMM_TABLE");
    selection::reset_for_testing();
  }
  void TearDown() override {
    unsetenv("FP8GEMM_TABLE");
    selection::reset_for_testing();
  }
};

TEST_F(TableFileTest, ParsesHeaderAndEntries) {
  LoadedTable t;
  Status const s = parse(std::string(kHeader) +
                             "per_tensor,promoted,identity,4096,4096,1,64,sm90_wgmma_large,1\n"
                             "\n"
                             " blockwise , fast , gelu_tanh , 7168 , 2048 , 65 , 128 , x , 4 \r\n",
                         &t);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(t.target, "sm90");
  EXPECT_EQ(t.sm_count, 114);
  EXPECT_EQ(t.provenance, "test GPU, 114 SMs, invented entries");
  ASSERT_EQ(t.entries.size(), 2u);
  selection::TableEntry const& b = t.entries[1];
  EXPECT_EQ(b.granularity, selection::GranularityClass::kBlockwise);
  EXPECT_EQ(b.accumulation, selection::AccumulationClass::kFast);
  EXPECT_EQ(b.epilogue, selection::EpilogueClass::kGeluTanh);
  EXPECT_EQ(b.n, 7168);
  EXPECT_EQ(b.k, 2048);
  EXPECT_EQ(b.m_lo, 65);
  EXPECT_EQ(b.m_hi, 128);
  EXPECT_STREQ(b.candidate, "x");
  EXPECT_EQ(b.split_k, 4);
  // the view points into the table's own storage, also after a move
  LoadedTable moved = std::move(t);
  selection::TableView const v = moved.view();
  EXPECT_EQ(v.size, 2u);
  EXPECT_EQ(v.sm_count, 114);
  EXPECT_STREQ(v.entries[0].candidate, "sm90_wgmma_large");
  EXPECT_EQ(std::string(v.provenance), "table t.csv: test GPU, 114 SMs, invented entries");
}

// Every malformed input is refused with the line it is on and what is wrong.
TEST_F(TableFileTest, RefusesEachMalformedLineWithItsLine) {
  std::string const entry = "per_tensor,promoted,identity,4096,4096,1,64,sm90_wgmma_large,1\n";
  struct Case {
    std::string text, expect;
  };
  std::vector<Case> const cases = {
      {"", "t.csv:0: no column line"},
      {std::string(kHeader), "no entries"},
      {"target,sm90\ngranularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k\n",
       "t.csv:2: no \"sm_count,<SMs>\" line"},
      {"sm_count,132\ngranularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k\n",
       "t.csv:2: no \"target,<name>\" line"},
      {"target,sm90\nsm_count,0\n", "t.csv:2: sm_count takes one positive integer"},
      {"target,sm90\nsm_count,12x\n", "sm_count takes one positive integer"},
      {"target,sm90\ncolour,blue\n", "t.csv:2: unknown header key \"colour\""},
      {"target,sm_90\n",
       "t.csv:1: target takes one of the library's targets: sm90, cdna4 or cdna3"},
      {"target,sm90 # a note\n", "(got \"sm90 # a note\")"},
      {"target,sm90\ntarget,cdna4\n", "t.csv:2: a second target line"},
      {"target,sm90\nsm_count,132\nsm_count,114\n", "t.csv:3: a second sm_count line"},
      {"target,sm90\nsm_count,132\ngranularity,accumulation,epilogue,n,k,m_lo,m_hi,split_k,"
       "candidate\n",
       "t.csv:3: the column line must be exactly"},
      {std::string(kHeader) + "per_row,promoted,identity,1,1,1,1,x,1\n",
       "t.csv:6: granularity \"per_row\""},
      {std::string(kHeader) + "per_tensor,slow,identity,1,1,1,1,x,1\n", "accumulation \"slow\""},
      {std::string(kHeader) + "per_tensor,fast,relu,1,1,1,1,x,1\n", "epilogue \"relu\""},
      {std::string(kHeader) + "per_tensor,fast,identity,0,1,1,1,x,1\n", "n \"0\""},
      {std::string(kHeader) + "per_tensor,fast,identity,1,-4,1,1,x,1\n", "k \"-4\""},
      {std::string(kHeader) + "per_tensor,fast,identity,1,1,1,99999999999,x,1\n",
       "m_hi \"99999999999\""},
      {std::string(kHeader) + "per_tensor,fast,identity,1,1,9,8,x,1\n", "m_lo 9 > m_hi 8"},
      {std::string(kHeader) + "per_tensor,fast,identity,1,1,1,1,,1\n", "no candidate name"},
      {std::string(kHeader) + "per_tensor,fast,identity,1,1,1,1,x,0\n", "split_k \"0\""},
      {std::string(kHeader) + entry + "per_tensor,fast,identity,1,1,1,1,x\n",
       "t.csv:7: an entry has 9 fields"},
  };
  for (Case const& c : cases) {
    LoadedTable t;
    Status const s = parse(c.text, &t);
    EXPECT_EQ(s.code(), StatusCode::kErrorInvalidArgument) << c.text;
    EXPECT_NE(s.message().find(c.expect), std::string::npos)
        << "expected \"" << c.expect << "\" in: " << s.message();
  }
  LoadedTable t;
  Status const missing = selection::read_table_file("/nonexistent/fp8gemm_table.csv", &t);
  EXPECT_EQ(missing.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(missing.message().find("/nonexistent/fp8gemm_table.csv: cannot be opened"),
            std::string::npos);
}

// A loaded table decides where the call plans for its SM count (114 here), before the target's
// own; at 132 SMs the shipped table and the model decide as before.
TEST_F(TableFileTest, LoadedTableDecidesAtItsSmCountOnly) {
  // sm90_wgmma_256x64 is table-only: the model never picks it, so only this table can
  std::string const path = write_file(
      "fp8gemm_table_114.csv",
      std::string(kHeader) +
          "per_tensor,promoted,identity,3072,4096,100,300,sm90_wgmma_256x64,1\n"
          "per_channel,promoted,identity,3072,4096,100,300,sm90_wgmma_pingpong_128x128,1\n");
  Choice const before = Auto::select(problem(200, 3072, 4096, 114));
  EXPECT_NE(before.short_name, "sm90_wgmma_256x64");
  ASSERT_TRUE(selection::load_table(path).ok());
  Choice const c = Auto::select(problem(200, 3072, 4096, 114));  // the memo was emptied
  EXPECT_EQ(c.short_name, "sm90_wgmma_256x64");
  EXPECT_EQ(c.tier, Tier::kTable);
  EXPECT_NE(c.reason.find("M in [100, 300] (table " + path + ": test GPU"), std::string::npos)
      << c.reason;
  AutoChannel::Arguments pc;
  pc.problem = {200, 3072, 4096};
  pc.sm_count = 114;
  EXPECT_EQ(AutoChannel::select(pc).short_name, "sm90_wgmma_pingpong_128x128");
  // outside the range, another shape, another SM count: not this table
  EXPECT_NE(Auto::select(problem(301, 3072, 4096, 114)).short_name, "sm90_wgmma_256x64");
  EXPECT_NE(Auto::select(problem(200, 3072, 2048, 114)).short_name, "sm90_wgmma_256x64");
  Choice const at132 = Auto::select(problem(200, 3072, 4096, 132));
  EXPECT_EQ(at132.reason.find(path), std::string::npos) << at132.reason;
  EXPECT_TRUE(Auto::can_implement(problem(200, 3072, 4096, 114)).ok() ||
              Auto::can_implement(problem(200, 3072, 4096, 114)).code() ==
                  StatusCode::kErrorUnsupported);  // a host build refuses only the device
  // reset_for_testing is a fresh process: the loaded table is gone
  selection::reset_for_testing();
  EXPECT_EQ(Auto::select(problem(200, 3072, 4096, 114)).short_name, before.short_name);
}

// The newest loaded table is looked up first; an entry naming a candidate this AutoGemm lacks
// hands the call to the model and says so (it does not fall through to an older table).
TEST_F(TableFileTest, NewestFirstAndStaleNamesSaySo) {
  std::string const older = write_file(
      "fp8gemm_table_older.csv",
      std::string(kHeader) + "per_tensor,promoted,identity,3072,4096,1,512,sm90_wgmma_256x64,1\n");
  std::string const newer =
      write_file("fp8gemm_table_newer.csv",
                 std::string(kHeader) +
                     "per_tensor,promoted,identity,3072,4096,1,128,sm90_wgmma_pingpong_128x128,1\n"
                     "per_tensor,promoted,identity,3072,4096,129,256,sm90_wgmma_no_such_tile,1\n");
  ASSERT_TRUE(selection::load_table(older).ok());
  ASSERT_TRUE(selection::load_table(newer).ok());
  EXPECT_EQ(Auto::select(problem(100, 3072, 4096, 114)).short_name, "sm90_wgmma_pingpong_128x128");
  EXPECT_EQ(Auto::select(problem(400, 3072, 4096, 114)).short_name, "sm90_wgmma_256x64");
  Choice const stale = Auto::select(problem(200, 3072, 4096, 114));
  EXPECT_EQ(stale.tier, Tier::kModel);
  EXPECT_NE(stale.reason.find("names sm90_wgmma_no_such_tile, which this AutoGemm does not have; "
                              "model:"),
            std::string::npos)
      << stale.reason;
  // a table for another target is not looked up
  std::string const other =
      write_file("fp8gemm_table_cdna4.csv",
                 "target,cdna4\nsm_count,114\n"
                 "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k\n"
                 "per_tensor,promoted,identity,3072,4096,1,1000,sm90_wgmma_large,1\n");
  ASSERT_TRUE(selection::load_table(other).ok());
  EXPECT_EQ(Auto::select(problem(100, 3072, 4096, 114)).short_name, "sm90_wgmma_pingpong_128x128");
}

// FP8GEMM_TABLE: read at first use (here: at reset_for_testing); a file that cannot be read fails
// every AutoGemm call in words rather than falling back unseen. load_table's own error changes
// nothing.
TEST_F(TableFileTest, EnvironmentTableAndItsErrors) {
  std::string const good = write_file(
      "fp8gemm_table_env.csv",
      std::string(kHeader) + "per_tensor,promoted,identity,3072,4096,1,512,sm90_wgmma_256x64,1\n");
  setenv("FP8GEMM_TABLE", (":" + good + ":").c_str(), 1);  // empty items are skipped
  selection::reset_for_testing();
  EXPECT_EQ(Auto::select(problem(200, 3072, 4096, 114)).short_name, "sm90_wgmma_256x64");

  std::string const bad = write_file("fp8gemm_table_bad.csv",
                                     std::string(kHeader) + "per_tensor,promoted,identity,1,1\n");
  setenv("FP8GEMM_TABLE", (good + ":" + bad).c_str(), 1);
  selection::reset_for_testing();
  for (int sms : {114, 132}) {
    Status const s = Auto::can_implement(problem(200, 3072, 4096, sms));
    EXPECT_EQ(s.code(), StatusCode::kErrorInvalidArgument);
    EXPECT_NE(s.message().find("FP8GEMM_TABLE: " + bad + ":6: an entry has 9 fields"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(Auto::select(problem(200, 3072, 4096, sms)).index, -1);
    EXPECT_EQ(s.message().find("raster"), std::string::npos) << s.message();  // the reason alone
  }
  AutoCdna4::Arguments cdna4;
  cdna4.problem = {200, 3072, 4096};
  Status const r = AutoCdna4::run(cdna4);  // another target, the same refusal, from run()
  EXPECT_EQ(r.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(r.message().find("FP8GEMM_TABLE: " + bad + ":6:"), std::string::npos) << r.message();
  unsetenv("FP8GEMM_TABLE");
  selection::reset_for_testing();
  Status const s = selection::load_table(bad);
  EXPECT_EQ(s.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(Auto::select(problem(200, 3072, 4096, 114)).index, -1);
}

// A choice decided before load_table (or reset_for_testing) bumped the generation may have seen
// the old tables: it is returned but not memoized, so the next call decides again.
TEST_F(TableFileTest, AChoiceFromBeforeALoadIsNotMemoized) {
  selection::ChoiceCache cache;
  selection::ChoiceKey key;
  key.m = 200, key.n = 3072, key.k = 4096, key.sm_count = 114;
  Choice c;
  c.index = 3;
  unsigned const before = selection::generation().load();
  selection::reset_for_testing();  // what load_table does to the generation
  EXPECT_FALSE(cache.insert(key, c, before));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(cache.insert(key, c, selection::generation().load()));
  EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
}  // namespace fp8gemm
