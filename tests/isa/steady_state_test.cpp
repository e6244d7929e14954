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

std::vector<std::string> lines(std::vector<Instr> const& v, F8f6f4Price price) {
  std::vector<Instr const*> p;
  for (auto const& i : v) p.push_back(&i);
  std::string const s = mca_input(p, price);
  std::vector<std::string> out;
  std::size_t b = 0;
  for (std::size_t e; (e = s.find('\n', b)) != std::string::npos; b = e + 1)
    out.push_back(s.substr(b, e - b));
  return out;
}

Instr instr(std::string const& text) {
  auto const sp = text.find(' ');
  return Instr{text.substr(0, sp), sp == std::string::npos ? "" : text.substr(sp + 1), text};
}

TEST(SteadyStateSelfTest, F8f6f4IsPricedAtTheFp8Rate) {
  // Eight independent 16x16x128 f8f6f4 with FP8 operands: llvm-mca's gfx950 model holds the matrix
  // pipe 4 cycles each (the FP4 rate); the stand-ins hold it 8 (the FP8 rate), and nothing else
  // limits the trip. Written twice, the same.
  auto const v = mfmas("v_mfma_f32_16x16x128_f8f6f4", 8, 4, false, "v[100:107], v[108:115]");
  McaResult const model = price(lines(v, F8f6f4Price::kModel), "gfx950", "selftest_f8f6f4_model.s");
  ASSERT_TRUE(model.error.empty()) << model.error;
  EXPECT_DOUBLE_EQ(model.matrix_per_trip, 8 * 4.0)
      << "llvm-mca's f8f6f4 price changed: revisit the correction";
  int passes = 0;
  for (auto const& i : v) passes += mfma_fp8_passes(i);
  EXPECT_EQ(passes, 8 * 8);
  for (F8f6f4Price const p : {F8f6f4Price::kStandIn, F8f6f4Price::kTwice}) {
    bool const in = p == F8f6f4Price::kStandIn;
    McaResult const fp8 =
        price(lines(v, p), "gfx950", in ? "selftest_f8f6f4_standin.s" : "selftest_f8f6f4_twice.s");
    ASSERT_TRUE(fp8.error.empty()) << fp8.error;
    EXPECT_DOUBLE_EQ(fp8.matrix_per_trip, passes);
    EXPECT_NEAR(fp8.cycles_per_trip, passes, 0.02 * passes);  // the pipe is the only limit
    EXPECT_NEAR(fp8.share(), 1.0, 0.02);
    // The same MFMAs all on one accumulator: the dependency costs nothing beyond the pipe.
    auto const chain = mfmas("v_mfma_f32_16x16x128_f8f6f4", 8, 4, true, "v[100:107], v[108:115]");
    McaResult const dep = price(lines(chain, p), "gfx950",
                                in ? "selftest_f8f6f4_chain.s" : "selftest_f8f6f4_chain_twice.s");
    ASSERT_TRUE(dep.error.empty()) << dep.error;
    EXPECT_NEAR(dep.cycles_per_trip, fp8.cycles_per_trip, 0.02 * passes);
    // 32x32x64: 8 in the model, 16 at the FP8 rate.
    auto const big = mfmas("v_mfma_f32_32x32x64_f8f6f4", 4, 16, false, "v[100:107], v[108:115]");
    McaResult const b =
        price(lines(big, p), "gfx950", in ? "selftest_f8f6f4_32.s" : "selftest_f8f6f4_32_twice.s");
    ASSERT_TRUE(b.error.empty()) << b.error;
    EXPECT_DOUBLE_EQ(b.matrix_per_trip, 4 * 16.0);
  }
}

TEST(SteadyStateSelfTest, StandInsHoldThePipeForTheirTablePasses) {
  // AMD's matrix instruction calculator (github.com/ROCm/amd_matrix_instruction_calculator,
  // matrix_calculator.py, its CDNA3 table): v_mfma_f32_16x16x4_f32 32 cycles = 8 passes,
  // v_mfma_f32_32x32x2_f32 64 cycles = 16 passes, the FP8 rate of 16x16x128 / 32x32x64 f8f6f4.
  // llvm-mca 22's gfx950 model must give the same, or the stand-ins price something else.
  McaResult const s16 =
      price(lines(mfmas("v_mfma_f32_16x16x4_f32", 4, 4, false, "v100, v101"), F8f6f4Price::kModel),
            "gfx950", "selftest_standin16.s");
  ASSERT_TRUE(s16.error.empty()) << s16.error;
  EXPECT_DOUBLE_EQ(s16.matrix_per_trip, 4 * 8.0);
  McaResult const s32 =
      price(lines(mfmas("v_mfma_f32_32x32x2_f32", 4, 16, false, "v100, v101"), F8f6f4Price::kModel),
            "gfx950", "selftest_standin32.s");
  ASSERT_TRUE(s32.error.empty()) << s32.error;
  EXPECT_DOUBLE_EQ(s32.matrix_per_trip, 4 * 16.0);
}

TEST(SteadyStateSelfTest, InstructionsAfterAStandInIssueWhileItRuns) {
  // Four MFMAs, each followed by 7 independent ALU instructions: 4 x (1 + 7) issue slots against
  // 4 x 8 passes, so the pipe never waits. Written twice, the second copy waits at issue for the
  // pipe the first holds (llvm-mca issues in order), 4 cycles, and the 7 issue after it, of which
  // only 3 overlap its 4 passes: 4 x (4 + 1 + 7) = 48 cycles.
  std::vector<Instr> v;
  for (int m = 0; m < 4; ++m) {
    std::string const d = "v[" + std::to_string(4 * m) + ":" + std::to_string(4 * m + 3) + "]";
    v.push_back(instr("v_mfma_f32_16x16x128_f8f6f4 " + d + ", v[100:107], v[108:115], 0"));
    for (int k = 0; k < 7; ++k)
      v.push_back(instr("v_add_u32_e32 v" + std::to_string(40 + 8 * m + k) + ", v120, v121"));
  }
  McaResult const in = price(lines(v, F8f6f4Price::kStandIn), "gfx950", "selftest_overlap.s");
  ASSERT_TRUE(in.error.empty()) << in.error;
  EXPECT_DOUBLE_EQ(in.matrix_per_trip, 32.0);
  EXPECT_NEAR(in.cycles_per_trip, 32.0, 0.5);
  McaResult const tw = price(lines(v, F8f6f4Price::kTwice), "gfx950", "selftest_overlap_twice.s");
  ASSERT_TRUE(tw.error.empty()) << tw.error;
  EXPECT_DOUBLE_EQ(tw.matrix_per_trip, 32.0);
  EXPECT_NEAR(tw.cycles_per_trip, 4 * 12.0, 0.5);
}

TEST(SteadyStateSelfTest, StandInReadsTheSourcesReadyLast) {
  // Model latencies (llvm-mca's gfx950: ds_read_b128 5, a VALU op 1, a buffer load into
  // registers 80): ready = latency - instructions since the writer.
  std::vector<Instr> v = {
      instr("ds_read_b128 v[100:103], v1"),                  // 5 back: ready 0
      instr("v_mov_b32_e32 v200, v201"),                     //
      instr("ds_read_b128 v[104:107], v2 offset:16"),        // 3 back: ready +2
      instr("buffer_load_dword v120, v3, s[4:7], 0 offen"),  // 2 back: ready +78
      instr("v_mov_b32_e32 v108, v202"),                     // 1 back: ready 0
      instr("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[100:107], v[108:115], 0"),
      instr("v_mfma_scale_f32_16x16x128_f8f6f4 v[4:7], v[100:107], v[108:115], v[4:7], v120, "
            "v121 op_sel_hi:[0,0,0]")};
  std::vector<int> const latency = {5, 1, 5, 80, 1, 8, 8};
  std::vector<Instr const*> p;
  for (auto const& i : v) p.push_back(&i);
  // A and B only: the later LDS read, then (a tie at ready 0: the nearer writer) the v_mov
  EXPECT_EQ(mfma_stand_in(p, 5, latency), "v_mfma_f32_16x16x4_f32 v[0:3], v104, v108, 0");
  // scaled: the scale register's load comes first; C is kept, the modifiers dropped
  EXPECT_EQ(mfma_stand_in(p, 6, latency), "v_mfma_f32_16x16x4_f32 v[4:7], v120, v104, v[4:7]");
  // the second source never comes from the first one's writer
  std::vector<Instr> w = {instr("ds_read_b128 v[100:103], v1"),
                          instr("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[100:107], v[108:115], 0")};
  std::vector<Instr const*> q = {&w[0], &w[1]};
  EXPECT_EQ(mfma_stand_in(q, 1, {5, 8}), "v_mfma_f32_16x16x4_f32 v[0:3], v100, v108, 0");
  // A and B the same registers, one writer: that register twice
  std::vector<Instr> same = {
      instr("ds_read_b128 v[100:103], v1"),
      instr("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[100:107], v[100:107], 0")};
  std::vector<Instr const*> r = {&same[0], &same[1]};
  EXPECT_EQ(mfma_stand_in(r, 1, {5, 8}), "v_mfma_f32_16x16x4_f32 v[0:3], v100, v100, 0");
}

TEST(SteadyStateSelfTest, VectorRegistersWrittenByClass) {
  auto written = [](char const* text) {
    std::string out;
    for (VReg const& r : vector_regs_written(instr(text))) out += r.name() + " ";
    return out;
  };
  EXPECT_EQ(written("v_fma_f32 v84, v10, v214, v84"), "v84 ");
  EXPECT_EQ(written("v_pk_fma_f32 v[4:5], v[6:7], v[8:9], v[4:5]"), "v4 v5 ");
  EXPECT_EQ(written("v_accvgpr_write_b32 a2, v246"), "a2 ");
  EXPECT_EQ(written("v_swap_b32 v1, v2"), "v1 v2 ");
  EXPECT_EQ(written("v_cmp_ne_u32_e64 s[66:67], 0, v18"), "");
  EXPECT_EQ(written("v_cmp_class_f32_e32 vcc, v18, v201"), "");
  EXPECT_EQ(written("v_readfirstlane_b32 s4, v1"), "");
  EXPECT_EQ(written("ds_read_b128 v[42:45], v18 offset:2048"), "v42 v43 v44 v45 ");
  EXPECT_EQ(written("ds_bpermute_b32 v3, v4, v5"), "v3 ");
  EXPECT_EQ(written("ds_write_b128 v18, v[42:45]"), "");
  EXPECT_EQ(written("buffer_load_dword v120, v3, s[4:7], 0 offen"), "v120 ");
  EXPECT_EQ(written("buffer_load_dwordx4 v206, s[4:7], s65 offen lds"), "");
  EXPECT_EQ(written("scratch_load_dword v7, off, s0 offset:16"), "v7 ");
  EXPECT_EQ(written("global_atomic_add_f32 v1, v[2:3], v4, off sc0"), "v1 ");
  EXPECT_EQ(written("global_atomic_add_f32 v[2:3], v4, off"), "");
  EXPECT_EQ(written("buffer_store_dword v1, v2, s[4:7], 0 offen"), "");
}

TEST(SteadyStateSelfTest, Gfx942Fp8MfmaNeedsNoCorrection) {
  auto const v = mfmas("v_mfma_f32_16x16x32_fp8_fp8", 8, 4, false, "v[100:101], v[108:109]");
  EXPECT_EQ(lines(v, F8f6f4Price::kTwice).size(), 8u);                        // not duplicated
  EXPECT_EQ(lines(v, F8f6f4Price::kStandIn), lines(v, F8f6f4Price::kModel));  // nor replaced
  McaResult const r = price(lines(v, F8f6f4Price::kStandIn), "gfx942", "selftest_gfx942.s");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(r.matrix_per_trip, 8 * 4.0);
  auto const big = mfmas("v_mfma_f32_32x32x16_fp8_fp8", 4, 16, false, "v[100:101], v[108:109]");
  McaResult const b = price(lines(big, F8f6f4Price::kStandIn), "gfx942", "selftest_gfx942_32.s");
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_DOUBLE_EQ(b.matrix_per_trip, 4 * 8.0);
}

TEST(SteadyStateSelfTest, SnippetShareIsTheHandComputedOne) {
  // 3 MFMAs x 8 passes = 24 matrix-pipe cycles per trip; the trip has 31 instructions (the
  // MFMAs' stand-ins among them), one issue each, so at least 31 cycles: share <= 24/31. Written
  // twice: 34 instructions, share <= 24/34.
  std::vector<AsmKernel> ks;
  SteadyStatePath const p = walk_snippet(kSnippet, ks);
  ASSERT_TRUE(p.error.empty()) << p.error;
  std::string const s = mca_input(p.instrs, F8f6f4Price::kStandIn);
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 31);
  EXPECT_EQ(s.find("f8f6f4"), std::string::npos);
  McaResult const r = price({s}, "gfx950", "selftest_snippet.s");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_DOUBLE_EQ(r.matrix_per_trip, 24.0);
  EXPECT_GE(r.cycles_per_trip, 31.0 - 0.5);
  EXPECT_LE(r.share(), 24.0 / 31.0 + 0.01);
  EXPECT_GT(r.share(), 0.0);
  std::string const t = mca_input(p.instrs, F8f6f4Price::kTwice);
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 34);
  McaResult const w = price({t}, "gfx950", "selftest_snippet_twice.s");
  ASSERT_TRUE(w.error.empty()) << w.error;
  EXPECT_DOUBLE_EQ(w.matrix_per_trip, 24.0);
  EXPECT_LE(w.share(), 24.0 / 34.0 + 0.01);
}

}  // namespace
}  // namespace fp8gemm::isa
