// SPDX-License-Identifier: MIT
// Self-tests of the steady-state K-loop analysis (steady_state.hpp) on hand-written assembly whose
// numbers are counted by hand below, and of the llvm-mca pricing of the f8f6f4 MFMA (label isa).
#include "steady_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace fp8gemm::isa {
namespace {

// A K loop as clang lays one out: the latch (.LBB0_1, landing the staged tile) before the header
// (.LBB0_2); a uniform prefetch test (scc1 skips the prefetch on the last trip); the prefetch's
// bounds check as an if/else on exec (then: one 16-byte load, else: a byte-wise tail copy); two
// fragment read + MFMA groups; a uniform back-branch whose fall-through leaves the loop.
constexpr char kSnippet[] = R"(	.text
	.type	snippet_kernel,@function
snippet_kernel:                         ; @snippet_kernel
	s_mov_b32 s10, 0
	s_branch .LBB0_2
.LBB0_1:                                ;   in Loop: Header=BB0_2 Depth=1
	ds_write_b128 v40, v[20:23]
	s_add_i32 s10, s10, 1
.LBB0_2:                                ; =>This Inner Loop Header: Depth=1
	s_add_i32 s11, s10, 1
	s_cmp_ge_i32 s11, s12
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_cbranch_scc1 .LBB0_7
; %bb.3:                                ;   in Loop: Header=BB0_2 Depth=1
	v_cmp_ge_i32_e32 vcc, s13, v30
	s_and_saveexec_b64 s[20:21], vcc
	s_xor_b64 s[20:21], exec, s[20:21]
	s_cbranch_execz .LBB0_5
; %bb.4:                                ;   in Loop: Header=BB0_2 Depth=1
	global_load_dwordx4 v[20:23], v[32:33], off
.LBB0_5:                                ;   in Loop: Header=BB0_2 Depth=1
	s_andn2_saveexec_b64 s[20:21], s[20:21]
	s_cbranch_execz .LBB0_6
; %bb.9:                                ;   in Loop: Header=BB0_2 Depth=1
	global_load_ubyte v20, v[32:33], off
	global_load_ubyte v21, v[32:33], off offset:1
	s_waitcnt vmcnt(0)
.LBB0_6:                                ;   in Loop: Header=BB0_2 Depth=1
	s_or_b64 exec, exec, s[20:21]
.LBB0_7:                                ;   in Loop: Header=BB0_2 Depth=1
	ds_read_b128 v[0:3], v41
	ds_read_b128 v[4:7], v41 offset:64
	ds_read_b128 v[12:15], v42
	ds_read_b128 v[16:19], v42 offset:64
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_16x16x128_f8f6f4 v[50:53], v[0:7], v[12:19], v[50:53]
	v_mfma_f32_16x16x128_f8f6f4 v[54:57], v[0:7], v[12:19], v[54:57]
	ds_read_b128 v[12:15], v42 offset:128
	ds_read_b128 v[16:19], v42 offset:192
	s_waitcnt lgkmcnt(0)
	s_setprio 1
	v_mfma_f32_16x16x128_f8f6f4 v[58:61], v[0:7], v[12:19], v[58:61]
	s_setprio 0
	s_waitcnt vmcnt(0)
	s_cmp_lt_i32 s11, s12
	s_cbranch_scc1 .LBB0_1
; %bb.8:
	s_endpgm
.Lfunc_end0:
)";

std::string replaced(std::string s, std::string const& from, std::string const& to) {
  auto const at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

SteadyStatePath walk_snippet(std::string const& text, std::vector<AsmKernel>& storage) {
  storage = parse_asm(text);
  EXPECT_EQ(storage.size(), 1u);
  EXPECT_EQ(k_loop_headers(storage.front()), std::vector<std::string>{"BB0_2"});
  return steady_state_path(storage.front(), "BB0_2");
}

TEST(SteadyStateSelfTest, SnippetPathIsTheInBoundsPrefetchingTrip) {
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(kSnippet, ks);
  ASSERT_TRUE(p.error.empty()) << p.error;
  // header, prefetch's if (then taken, else skipped), join, the MFMAs, the latch; not %bb.9 (tail).
  EXPECT_EQ(p.blocks, (std::vector<std::string>{".LBB0_2", "; %bb.3", "; %bb.4", ".LBB0_5",
                                                ".LBB0_6", ".LBB0_7", ".LBB0_1"}));
  ASSERT_EQ(p.uniform.size(), 2u);
  EXPECT_NE(p.uniform[0].find("s_cbranch_scc1 .LBB0_7 -> fall-through (uniform; the longer rest"),
            std::string::npos)
      << p.uniform[0];
  EXPECT_NE(
      p.uniform[1].find("s_cbranch_scc1 .LBB0_1 -> taken (uniform; the other side leaves the loop"),
      std::string::npos)
      << p.uniform[1];
}

TEST(SteadyStateSelfTest, SnippetCountsAreTheHandCountedOnes) {
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(kSnippet, ks);
  ASSERT_TRUE(p.error.empty()) << p.error;
  TripCounts const c = count_trip(p.instrs);
  // .LBB0_2 5, %bb.3 4, %bb.4 1, .LBB0_5 2, .LBB0_6 1, .LBB0_7 16, .LBB0_1 2
  EXPECT_EQ(c.instrs, 31);
  EXPECT_EQ(c.mfma, 3);
  EXPECT_DOUBLE_EQ(c.nonmfma_per_mfma(), 28.0 / 3.0);
  EXPECT_EQ(c.waitcnt,
            4);  // lgkmcnt(0) in the header, two lgkmcnt(0), one vmcnt(0); not the tail's
  EXPECT_EQ(c.waitcnt_zero, 4);
  EXPECT_EQ(c.zero_wait_before_mfma, 1);        // the first lgkmcnt(0) of .LBB0_7
  EXPECT_EQ(c.zero_wait_before_mfma_loose, 2);  // + the one behind s_setprio 1
  EXPECT_EQ(c.longest_mfma_run, 2);
  EXPECT_EQ(c.staged_loads, 1);  // the 16-byte prefetch; the tail's ubyte loads are off the path
  EXPECT_EQ(c.staged_load_bytes, 16);
  EXPECT_EQ(c.staged_x16, 1);
  EXPECT_EQ(c.staged_narrow, 0);
  EXPECT_EQ(c.lds_direct_loads, 0);
  EXPECT_EQ(c.ds_reads, 6);
  EXPECT_EQ(c.ds_writes, 1);
  EXPECT_EQ(c.barriers, 1);
  EXPECT_EQ(c.branches, 4);
  EXPECT_EQ(c.scratch_instrs, 0);
}

TEST(SteadyStateSelfTest, CountsWrapAroundTheBackEdge) {
  // A trip that ends with an MFMA and starts with two: the run continues across the back edge; the
  // wait to zero before the last MFMA counts.
  Instr const mfma{"v_mfma_f32_16x16x128_f8f6f4", "v[0:3], v[4:11], v[12:19], v[0:3]", ""};
  Instr const wait{"s_waitcnt", "lgkmcnt(0)", ""};
  Instr const read{"ds_read_b128", "v[4:7], v1", ""};
  std::vector<Instr const*> const path = {&mfma, &mfma, &read, &wait, &mfma};
  TripCounts const c = count_trip(path);
  EXPECT_EQ(c.zero_wait_before_mfma, 1);
  EXPECT_EQ(c.longest_mfma_run, 3);
}

TEST(SteadyStateSelfTest, DirectToLdsLoadsAreNotStaged) {
  Instr const lds{"buffer_load_dwordx4", "v5, s[8:11], 0 offen lds", ""};
  Instr const staged{"buffer_load_dwordx4", "v[0:3], v5, s[8:11], 0 offen", ""};
  Instr const glds{"global_load_lds_dwordx4", "v[2:3], off", ""};
  TripCounts const c = count_trip({&lds, &staged, &glds});
  EXPECT_EQ(c.lds_direct_loads, 2);
  EXPECT_EQ(c.staged_loads, 1);
}

TEST(SteadyStateSelfTest, LaneMasksFollowTheIfElseIdiom) {
  LaneState s;
  auto run = [&s](char const* op, char const* operands) {
    apply_lanes(Instr{op, operands, ""}, s);
  };
  run("v_cmp_gt_i32_e64", "s[4:5], s3, v1");
  EXPECT_EQ(s.read("s[4:5]"), Lanes::kAll);
  run("s_and_saveexec_b64", "s[6:7], s[4:5]");  // then: all lanes
  EXPECT_EQ(s.exec(), Lanes::kAll);
  run("s_xor_b64", "s[6:7], exec, s[6:7]");  // else mask: no lane
  EXPECT_EQ(s.read("s[6:7]"), Lanes::kNone);
  run("s_andn2_saveexec_b64", "s[6:7], s[6:7]");  // else: no lane
  EXPECT_EQ(s.exec(), Lanes::kNone);
  run("v_cmp_lt_i32_e32", "vcc, 0, v2");  // inside the else: inactive lanes compare to 0
  EXPECT_EQ(s.read("vcc"), Lanes::kNone);
  run("s_or_b64", "exec, exec, s[6:7]");  // join
  EXPECT_EQ(s.exec(), Lanes::kAll);
  run("s_cselect_b64", "s[8:9], -1, 0");  // scalar data
  EXPECT_EQ(s.read("s[8:9]"), Lanes::kUnknown);
  run("s_mov_b32", "s8, 0");
  EXPECT_EQ(s.read("s8"), Lanes::kUnknown);
}

TEST(SteadyStateSelfTest, UnknownExecFailsLoudly) {
  // The bounds mask made from scalar data: the walk cannot tell the lanes and says so.
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(
      replaced(kSnippet, "v_cmp_ge_i32_e32 vcc, s13, v30", "s_cselect_b64 vcc, -1, 0"), ks);
  EXPECT_NE(p.error.find("exec is not a known lane mask"), std::string::npos) << p.error;
}

TEST(SteadyStateSelfTest, AnInvertedBoundsCheckPutsTheTailOnThePath) {
  // `if (!in_bounds)`: under the all-lanes assumption the byte copy runs; the per-config check
  // (no 1/2-byte loads in the trip) is what catches such a layout.
  std::string const wide = "\tglobal_load_dwordx4 v[20:23], v[32:33], off\n";
  std::string const bytes =
      "\tglobal_load_ubyte v20, v[32:33], off\n\tglobal_load_ubyte v21, v[32:33], off offset:1\n";
  std::string const swapped =
      replaced(replaced(replaced(kSnippet, wide, "@WIDE@"), bytes, wide), "@WIDE@", bytes);
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(swapped, ks);
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(count_trip(p.instrs).staged_narrow, 2);
}

TEST(SteadyStateSelfTest, NoWayBackToTheHeaderFails) {
  std::vector<AsmKernel> ks;
  SteadyStatePath const p =
      walk_snippet(replaced(kSnippet, "s_cbranch_scc1 .LBB0_1", "s_nop 0"), ks);
  EXPECT_NE(p.error.find("leaves the loop"), std::string::npos) << p.error;
}

TEST(SteadyStateSelfTest, McaOutputIsRead) {
  std::string const out = R"(Iterations:        10
Instructions:      70
Total Cycles:      644
Total uOps:        70

Resources:
[0]   - HWBranch
[1]   - HWExport
[2]   - HWLGKM
[3]   - HWSALU
[4]   - HWVALU
[5]   - HWVMEM
[6]   - HWXDL


Resource pressure per iteration:
[0]    [1]    [2]    [3]    [4]    [5]    [6]    
1.00    -     32.00  80.00  54.00  8.00   56.00  
)";
  McaResult const r = parse_mca(out);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.iterations, 10);
  EXPECT_EQ(r.total_cycles, 644);
  EXPECT_DOUBLE_EQ(r.cycles_per_trip, 64.4);
  EXPECT_DOUBLE_EQ(r.matrix_per_trip, 56.0);
  EXPECT_FALSE(parse_mca("garbage").error.empty());
}

TEST(SteadyStateSelfTest, MissingLlvmMcaIsAnErrorNotASkip) {
  McaResult const r = run_mca("", "unused.s", "gfx950");
  EXPECT_NE(r.error.find("llvm-mca-22 not found"), std::string::npos) << r.error;
  EXPECT_EQ(r.share(), 0.0);
}

// ---- the pricing, through llvm-mca-22 itself -------------------------------------------------

McaResult price(std::vector<std::string> const& lines, char const* arch, char const* file) {
  std::string const path = std::string(FP8GEMM_ISA_STEADY_STATE_DIR) + "/" + file;
  std::ofstream f(path);
  for (auto const& l : lines) f << l << "\n";
  f.close();
  return run_mca(FP8GEMM_ISA_LLVM_MCA, path, arch);
}

std::vector<Instr> mfmas(char const* op, int n, int dst_regs, bool chained, char const* ab) {
  std::vector<Instr> v;
  for (int i = 0; i < n; ++i) {
    int const d = chained ? 0 : i * dst_regs;
    std::string const dst = "v[" + std::to_string(d) + ":" + std::to_string(d + dst_regs - 1) + "]";
    v.push_back(Instr{op, dst + ", " + ab + ", " + dst,
                      std::string(op) + " " + dst + ", " + ab + ", " + dst});
  }
  return v;
}

std::vector<std::string> lines(std::vector<Instr> const& v, bool fp8_rate) {
  std::vector<Instr const*> p;
  for (auto const& i : v) p.push_back(&i);
  std::string const s = mca_input(p, fp8_rate);
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t e; (e = s.find('\n', b)) != std::string::npos; b = e + 1)
    out.push_back(s.substr(b, e - b));
  return out;
}

TEST(SteadyStateSelfTest, F8f6f4IsPricedAtTheFp8Rate) {
  // Eight independent 16x16x128 f8f6f4 with FP8 operands: llvm-mca's gfx950 model holds the matrix
  // pipe 4 cycles each (the FP4 rate); written twice, 8 = the FP8 rate, and nothing else moves.
  auto const v = mfmas("v_mfma_f32_16x16x128_f8f6f4", 8, 4, false, "v[100:107], v[108:115]");
  McaResult const model = price(lines(v, false), "gfx950", "selftest_f8f6f4_model.s");
  ASSERT_TRUE(model.error.empty()) << model.error;
  EXPECT_DOUBLE_EQ(model.matrix_per_trip, 8 * 4.0)
      << "llvm-mca's f8f6f4 price changed: revisit the correction";
  McaResult const fp8 = price(lines(v, true), "gfx950", "selftest_f8f6f4_fp8.s");
  ASSERT_TRUE(fp8.error.empty()) << fp8.error;
  int passes = 0;
  for (auto const& i : v) passes += mfma_fp8_passes(i);
  EXPECT_EQ(passes, 8 * 8);
  EXPECT_DOUBLE_EQ(fp8.matrix_per_trip, passes);
  EXPECT_NEAR(fp8.cycles_per_trip, passes, 0.02 * passes);  // the pipe is the only limit
  EXPECT_NEAR(fp8.share(), 1.0, 0.02);
  // The same MFMAs all on one accumulator: the duplicate's dependency costs nothing beyond the
  // pipe.
  auto const chain = mfmas("v_mfma_f32_16x16x128_f8f6f4", 8, 4, true, "v[100:107], v[108:115]");
  McaResult const dep = price(lines(chain, true), "gfx950", "selftest_f8f6f4_chain.s");
  ASSERT_TRUE(dep.error.empty()) << dep.error;
  EXPECT_NEAR(dep.cycles_per_trip, fp8.cycles_per_trip, 0.02 * passes);
  // 32x32x64: 8 in the model, 16 at the FP8 rate.
  auto const big = mfmas("v_mfma_f32_32x32x64_f8f6f4", 4, 16, false, "v[100:107], v[108:115]");
  McaResult const b = price(lines(big, true), "gfx950", "selftest_f8f6f4_32.s");
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_DOUBLE_EQ(b.matrix_per_trip, 4 * 16.0);
}

TEST(SteadyStateSelfTest, Gfx942Fp8MfmaNeedsNoCorrection) {
  auto const v = mfmas("v_mfma_f32_16x16x32_fp8_fp8", 8, 4, false, "v[100:101], v[108:109]");
  EXPECT_EQ(lines(v, true).size(), 8u);  // not duplicated
  McaResult const r = price(lines(v, true), "gfx942", "selftest_gfx942.s");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(r.matrix_per_trip, 8 * 4.0);
  auto const big = mfmas("v_mfma_f32_32x32x16_fp8_fp8", 4, 16, false, "v[100:101], v[108:109]");
  McaResult const b = price(lines(big, true), "gfx942", "selftest_gfx942_32.s");
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_DOUBLE_EQ(b.matrix_per_trip, 4 * 8.0);
}

TEST(SteadyStateSelfTest, SnippetShareIsTheHandComputedOne) {
  // 3 MFMAs x 8 passes = 24 matrix-pipe cycles per trip; the trip has 31 instructions + 3
  // duplicates, one issue each, so at least 34 cycles: share <= 24/34.
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(kSnippet, ks);
  ASSERT_TRUE(p.error.empty()) << p.error;
  std::string const s = mca_input(p.instrs, true);
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 34);
  McaResult const r = price({s}, "gfx950", "selftest_snippet.s");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(r.matrix_per_trip, 24.0);
  EXPECT_GE(r.cycles_per_trip, 34.0 - 0.5);
  EXPECT_LE(r.share(), 24.0 / 34.0 + 0.01);
  EXPECT_GT(r.share(), 0.0);
}

}  // namespace
}  // namespace fp8gemm::isa
