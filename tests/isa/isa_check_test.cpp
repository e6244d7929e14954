// SPDX-License-Identifier: MIT
// ISA checks of the GEMM kernels compiled for gfx942 / gfx950 (label isa): reads the clang -S
// output of gemm_kernels.hip.cpp, finds each config's kernel and its K loop, checks the MFMA form
// and count, scratch, registers, LDS and memory-access widths against what the policy intends, and
// prints a per-config table (also written as markdown: docs/isa_report.md is a committed copy). The
// second table is the steady-state K loop (steady_state.hpp: one trip with every lane in bounds,
// its counts and llvm-mca-22's matrix-pipe share), next to HipKittens' 8-wave kernel measured the
// same way.
//
// K loop method: LLVM's asm printer annotates every basic block inside a loop ("=>This Loop Header:
// Depth=1", "in Loop: Header=BB0_92 Depth=1", "Parent Loop BB0_92 Depth=1" for nested loops). A K
// loop is a depth-1 loop whose blocks hold MFMAs (one per kernel: GemmKernel::run calls the
// mainloop once for the unsplit and the split-K store). Per-iteration counts are taken over the
// loop's depth-1 blocks, each counted once: the K loop is fully unrolled over k-steps and atoms, so
// every MFMA, fragment read and full-width tile load of one iteration appears exactly once there.
// Instructions in nested (depth-2) loops and in conditional tail blocks are the K/N-tail byte
// paths; they are counted separately (narrow loads) and not in the per-iteration numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "asm_model.hpp"
#include "isa_kernels.hpp"
#include "steady_state.hpp"

namespace fp8gemm::isa {
namespace {

// ---- instruction classes ---------------------------------------------------------------------

/// Bytes per lane one LDS read moves, and the width of each access (read2: two accesses).
struct Access {
  int bytes = 0, width = 0;
};
Access lds_access(std::string const& op, bool write) {
  static std::regex const rd(R"(^ds_(?:read|load)(2st64|2)?_[bui](8|16|32|64|96|128)\b.*)");
  static std::regex const wr(R"(^ds_(?:write|store)(2st64|2)?_b(8|16|32|64|96|128)\b.*)");
  std::smatch m;
  if (!std::regex_match(op, m, write ? wr : rd)) return {};
  int const width = std::stoi(m[2]) / 8;
  return {m[1].matched ? 2 * width : width, width};
}
int global_load_bytes(std::string const& op) {
  static std::regex const re(
      R"(^(?:global|buffer|flat)_load_(?:lds_)?(dwordx4|dwordx3|dwordx2|dword|ushort|sshort|short_d16\w*|ubyte\w*|sbyte\w*|b128|b96|b64|b32))");
  std::smatch m;
  if (!std::regex_search(op, m, re)) return 0;
  std::string const s = m[1];
  if (s == "dwordx4" || s == "b128") return 16;
  if (s == "dwordx3" || s == "b96") return 12;
  if (s == "dwordx2" || s == "b64") return 8;
  if (s == "dword" || s == "b32") return 4;
  if (s.find("short") != std::string::npos) return 2;
  return 1;
}
bool is_mfma(std::string const& op) {
  return op.rfind("v_mfma", 0) == 0;
}
bool is_scratch(Instr const& i) {
  // gfx942 and gfx950 have architected flat scratch: a spill is a scratch_* instruction (and a
  // nonzero .private_segment_fixed_size, checked apart). The pre-gfx940 form, buffer ... offen
  // through a private-segment resource in s[0:3], is not counted: these kernels' tile loads use
  // that same form with their own buffer resources, which the allocator may place in s[0:3] (the
  // grouped kernels' do).
  return i.op.rfind("scratch_", 0) == 0;
}
int modifier(std::string const& text, char const* name) {
  std::smatch m;
  std::regex const re(std::string(name) + R"(:(\d+))");
  return std::regex_search(text, m, re) ? std::stoi(m[1]) : 0;
}

// ---- what one kernel's code does ------------------------------------------------------------

struct LoopFacts {
  std::string header;
  int mfma = 0;
  std::map<std::string, int> mfma_forms;  // mnemonic + modifiers -> count
  int lds_reads = 0, lds_read_bytes = 0, lds_read_min_width = 1 << 30;
  int lds_writes = 0, lds_write_bytes = 0, lds_write_min_width = 1 << 30;
  int global_x16 = 0, global_narrow = 0, global_narrow_nested = 0;
  int global_lds_narrow = 0;  // 4-byte direct-to-LDS tile loads (gfx942's buffer_load_dword lds)
  std::vector<int> vmcnt_before_ds_write;  // per ds_write: N of the latest vmcnt(N) before it
  int serialized_loads = 0;  // 16-byte loads waited for (vmcnt) in their own block before any MFMA
  int barriers = 0;
  std::map<std::string, int> lds_read_ops, lds_write_ops;
};

struct KernelFacts {
  std::string symbol;
  std::vector<LoopFacts> k_loops;
  std::map<std::string, int> mfma_ops;  // whole kernel
  int scratch_instrs = 0;
  int lds_read_hazards = 0;  // instructions touching an LDS read's registers before its wait
  long vgpr = -1, agpr = -1, arch_vgpr = -1, sgpr = -1, vgpr_spill = -1, sgpr_spill = -1,
       private_bytes = -1, group_bytes = -1, occupancy = -1;
};

long meta_long(AsmKernel const& k, char const* key) {
  auto const it = k.meta.find(key);
  return it == k.meta.end() ? -1 : std::stol(it->second);
}
long info_long(AsmKernel const& k, char const* key) {
  auto const it = k.info.find(key);
  return it == k.info.end() ? -1 : it->second;
}

/// The VGPRs an operand list names (v7, v[4:7]).
std::vector<int> vgprs(std::string const& operands) {
  static std::regex const re(R"(\bv(?:\[(\d+):(\d+)\]|(\d+)))");
  std::vector<int> out;
  for (std::sregex_iterator it(operands.begin(), operands.end(), re), end; it != end; ++it) {
    if ((*it)[3].matched) {
      out.push_back(std::stoi((*it)[3]));
    } else {
      for (int r = std::stoi((*it)[1]); r <= std::stoi((*it)[2]); ++r) out.push_back(r);
    }
  }
  return out;
}

/// Instructions that read or overwrite the destination registers of an LDS read (or an SMEM load,
/// which shares its counter) before an s_waitcnt lgkmcnt(N) has let it land, in program order:
/// LDS reads return in order, so lgkmcnt(N) lands all but the newest N. The gfx950 buffer-load
/// mainloop reads LDS through inline asm (arch::lds_read16_counted) that the compiler does not
/// track, so its own waits are all that orders these reads; this finds a register the compiler
/// reused, or an MFMA moved, before them. (Program order over the whole kernel: a conservative
/// model of the control flow, enough for straight-line phases.)
int lds_read_hazards(AsmKernel const& k) {
  std::vector<std::vector<int>> pending;  // oldest first: destination VGPRs of each LDS op
  int hazards = 0;
  for (Block const& b : k.blocks) {
    for (Instr const& i : b.instrs) {
      if (i.op == "s_waitcnt") {
        auto const at = i.operands.find("lgkmcnt(");
        if (at == std::string::npos) continue;
        std::size_t const keep = static_cast<std::size_t>(std::stoi(i.operands.substr(at + 8)));
        if (pending.size() > keep) pending.erase(pending.begin(), pending.end() - keep);
        continue;
      }
      std::vector<int> const regs = vgprs(i.operands);
      bool const lds_read = lds_access(i.op, false).bytes > 0;
      bool const smem = i.op.rfind("s_load", 0) == 0 || i.op.rfind("s_buffer_load", 0) == 0;
      // A new LDS read's address operand, and every operand of any other instruction.
      std::vector<int> const dst =
          lds_read ? vgprs(i.operands.substr(0, i.operands.find(','))) : std::vector<int>{};
      for (std::size_t r = lds_read ? dst.size() : 0; r < regs.size(); ++r) {
        for (auto const& p : pending)
          if (std::find(p.begin(), p.end(), regs[r]) != p.end()) ++hazards;
      }
      if (lds_read) pending.push_back(dst);
      if (smem) pending.push_back({});
    }
  }
  return hazards;
}

KernelFacts analyze(AsmKernel const& k) {
  KernelFacts f;
  f.symbol = k.symbol;
  f.vgpr = meta_long(k, ".vgpr_count");  // arch + acc VGPRs (gfx90a+: one 512-entry file)
  f.agpr = meta_long(k, ".agpr_count");
  f.arch_vgpr = info_long(k, "NumVgprs");
  f.sgpr = meta_long(k, ".sgpr_count");
  f.vgpr_spill = meta_long(k, ".vgpr_spill_count");
  f.sgpr_spill = meta_long(k, ".sgpr_spill_count");
  f.private_bytes = meta_long(k, ".private_segment_fixed_size");
  f.group_bytes = meta_long(k, ".group_segment_fixed_size");
  f.occupancy = info_long(k, "Occupancy");
  f.lds_read_hazards = lds_read_hazards(k);
  std::map<std::string, LoopFacts> loops;
  std::vector<std::string> order;
  for (Block const& b : k.blocks) {
    for (Instr const& i : b.instrs) {
      if (is_mfma(i.op)) ++f.mfma_ops[i.op];
      if (is_scratch(i)) ++f.scratch_instrs;
    }
    if (b.outer_loop.empty()) continue;
    if (!loops.count(b.outer_loop)) order.push_back(b.outer_loop);
    LoopFacts& l = loops[b.outer_loop];
    l.header = b.outer_loop;
    bool const direct = b.depth == 1;
    int pending_loads = 0;  // 16-byte loads in this block not yet followed by an MFMA
    int last_vmcnt = -1;    // N of this block's latest s_waitcnt vmcnt(N)
    for (Instr const& i : b.instrs) {
      if (direct && starts_with(i.op, "ds_write") && last_vmcnt >= 0)
        l.vmcnt_before_ds_write.push_back(last_vmcnt);
      if (i.op == "s_waitcnt" && i.text.find("vmcnt(") != std::string::npos)
        last_vmcnt = std::stoi(i.text.substr(i.text.find("vmcnt(") + 6));
      int const g = global_load_bytes(i.op);
      if (!direct) {
        if (g > 0 && g < 16) ++l.global_narrow_nested;
        continue;
      }
      if (is_mfma(i.op)) {
        ++l.mfma;
        std::string form = i.op;
        for (char const* mod : {"cbsz", "blgp"})
          if (int const v = modifier(i.text, mod))
            form += std::string(" ") + mod + ":" + std::to_string(v);
        ++l.mfma_forms[form];
        pending_loads = 0;
      }
      if (g == 16) ++l.global_x16, ++pending_loads;
      bool const to_lds = g > 0 && g < 16 && vmem_load(i).to_lds;
      if (to_lds) ++l.global_lds_narrow;
      if (g > 0 && g < 16 && !to_lds) ++l.global_narrow;
      // A wait that leaves N loads in flight serializes this block's loads only past the N newest.
      if (i.op == "s_waitcnt" && i.text.find("vmcnt(") != std::string::npos && pending_loads > 0) {
        int const left = std::stoi(i.text.substr(i.text.find("vmcnt(") + 6));
        if (left < pending_loads) l.serialized_loads += pending_loads - left;
        pending_loads = left < pending_loads ? left : pending_loads;
      }
      if (i.op == "s_barrier") ++l.barriers;
      if (Access const a = lds_access(i.op, false); a.bytes > 0) {
        ++l.lds_reads, l.lds_read_bytes += a.bytes, ++l.lds_read_ops[i.op];
        l.lds_read_min_width = std::min(l.lds_read_min_width, a.width);
      }
      if (Access const a = lds_access(i.op, true); a.bytes > 0) {
        ++l.lds_writes, l.lds_write_bytes += a.bytes, ++l.lds_write_ops[i.op];
        l.lds_write_min_width = std::min(l.lds_write_min_width, a.width);
      }
    }
  }
  for (auto const& h : order)
    if (loops[h].mfma > 0) f.k_loops.push_back(loops[h]);
  return f;
}

// ---- what the policy intends --------------------------------------------------------------

struct Expect {
  std::string name, arch;
  int waves = 0, threads = 0, waves_per_simd = 0;
  int mfma_per_iter = 0;
  std::vector<std::string> mfma_allowed;  // mnemonics allowed anywhere in the kernel
  std::string mfma_in_loop;               // mnemonic (+ " cbsz:N" / " blgp:N") of every K-loop MFMA
  int lds_read_bytes = 0, lds_read_width = 0;  // per lane per K-iteration; narrowest access
  int global_x16 = 0;        // tile loads per lane per K-iteration (16-byte, or direct-to-LDS ones)
  int tile_load_bytes = 16;  // bytes per lane of one tile load
  int staged_write_vmcnt = -1;  // buffer-load mainloop through registers: its named ds_write wait
  int scale_bytes = 0;  // MX-32 in hardware: E8M0 byte loads per lane per K-iteration (1 per atom)
  int scale_lds_loads = 0;   // Blockwise, direct-to-LDS mainloop: scale dword loads per K tile
  int vote_dword_reads = 0;  // Blockwise, folded: the vote's ds_read_b32 of the scales per K tile
  int lds_bytes = 0, lds_policy_bytes = 0, lds_limit = 0;
  int tile_bytes = 0;         // (BM + BN) * BK: A and B bytes per K-iteration
  int block_k = 0;            // K depth of one K-loop trip (one block tile)
  int mfma_cycles = 0;        // notes §1.2
  int lds_bytes_per_clk = 0;  // notes §3
  std::string policy;
};

/// The gfx950 direct-to-LDS mainloop (its tile loads are counted per tile, not per copy vector).
template <class Mainloop, class = void>
constexpr bool kIsBufferLds = false;
template <class Mainloop>
constexpr bool kIsBufferLds<Mainloop, std::void_t<decltype(Mainloop::kLoadsPerTile)>> = true;

template <class E>
char const* cdna3_operand() {
  return std::is_same_v<E, e4m3fnuz> ? "fp8" : "bf8";
}

template <class Config>
Expect expect(char const* name) {
  using P = typename Config::Policy;
  using A = typename P::Atom;
  Expect e;
  e.name = name;
  e.arch = P::Arch::kName;
  e.waves = P::kWaves;
  e.threads = P::kThreads;
  e.waves_per_simd = (P::kWaves + 3) / 4;  // all waves of the workgroup share one CU's 4 SIMDs
  e.mfma_per_iter = P::kAtomsM * P::kAtomsN * P::kKSteps;
  e.lds_read_bytes = P::kKSteps * (P::kAtomsM * A::kAChunks * A::kAChunkBytes +
                                   P::kAtomsN * A::kBChunks * A::kBChunkBytes);
  e.lds_read_width = std::min(A::kAChunkBytes, A::kBChunkBytes);
  using Mainloop = typename Config::Mainloop;
  if constexpr (kIsBufferLds<Mainloop>) {
    e.global_x16 = Mainloop::kLoadsPerTile;  // buffer_load_dword(x4) (... lds)
    e.tile_load_bytes = Mainloop::kLoadBytes;
    if constexpr (Mainloop::kStaged) e.staged_write_vmcnt = Mainloop::kStagedWriteVmcnt;
    // Blockwise: the scales by buffer_load_dword ... lds, read by ds_read
    e.scale_lds_loads = Mainloop::kScaleLoads;
    e.lds_read_bytes += Mainloop::kScaleReadBytes;
    e.vote_dword_reads = Mainloop::kVoteReadBytes / 4;  // not fragment reads: 4 bytes each
  } else if constexpr (Config::kLayoutB == LayoutB::kNK) {
    e.global_x16 = Mainloop::CopyA::kVecs + Mainloop::CopyB::kVecs;
  } else {
    e.global_x16 = Mainloop::CopyA::kVecs + 4 * Mainloop::CopyB::kUnits;
  }
  if constexpr (std::is_same_v<typename Config::Granularity, Mx32> &&
                arch::has_hardware_mx32<A>::value) {
    e.scale_bytes = P::kKSteps * (P::kAtomsM + P::kAtomsN);
    if constexpr (kIsBufferLds<Mainloop>) {  // A's bytes twice: one copy per half of the clusters
      e.scale_bytes = 0;
      for (int c = 0; c < Mainloop::kClusters; ++c) e.scale_bytes += Mainloop::scale_loads(c);
    }
  }
  e.lds_bytes = Config::Kernel::kSharedBytes;
  e.lds_policy_bytes = P::kStages * (Mainloop::LdsLayoutA::kBytes + Mainloop::LdsLayoutB::kBytes);
  if constexpr (kIsBufferLds<Mainloop>)  // Blockwise: each wave's scales of a tile per stage
    e.lds_policy_bytes += P::kStages * P::kWaves * Mainloop::kScaleFloats * 4;
  e.lds_limit = P::Arch::kLdsBytes;
  e.tile_bytes = (P::kBlockM + P::kBlockN) * P::kBlockK;
  e.block_k = P::kBlockK;
  using EA = typename P::ElementA;
  using EB = typename P::ElementB;
  if constexpr (std::is_same_v<typename P::Arch, arch::Cdna3>) {
    std::string const shape = A::kM == 16 ? "16x16x32_" : "32x32x16_";
    std::string const mn = "v_mfma_f32_" + shape + cdna3_operand<EA>() + "_" + cdna3_operand<EB>();
    e.mfma_allowed = {mn};
    e.mfma_in_loop = mn;
    e.mfma_cycles = A::kM == 16 ? 16 : 32;  // CDNA3 fp8: 16x16x32 16 cycles, 32x32x16 32 cycles
    e.lds_bytes_per_clk = 128;              // CDNA3 LDS read bandwidth per CU
  } else {
    std::string const shape = A::kM == 16 ? "16x16x128" : "32x32x64";
    e.mfma_allowed = {"v_mfma_f32_" + shape + "_f8f6f4", "v_mfma_scale_f32_" + shape + "_f8f6f4"};
    // Runtime E8M0 scales (Mx32) keep the scaled form; constant-zero scales fold to the plain one.
    e.mfma_in_loop =
        std::is_same_v<typename Config::Granularity, Mx32> ? e.mfma_allowed[1] : e.mfma_allowed[0];
    if constexpr (!std::is_same_v<EA, e4m3fn>) e.mfma_in_loop += " cbsz:1";
    if constexpr (!std::is_same_v<EB, e4m3fn>) e.mfma_in_loop += " blgp:1";
    e.mfma_cycles =
        A::kM == 16 ? 32 : 64;  // CDNA4 f8f6f4 with an FP8 operand: 16x16x128 32, 32x32x64 64
    e.lds_bytes_per_clk = 256;  // CDNA4
  }
  e.policy = std::string(A::kName) + " " + std::to_string(P::kBlockM) + "x" +
             std::to_string(P::kBlockN) + "x" + std::to_string(P::kBlockK) + " w" +
             std::to_string(P::kWavesM) + "x" + std::to_string(P::kWavesN) + " s" +
             std::to_string(P::kStages) + " " + Config::Granularity::kName + " " +
             layout_name(Config::kLayoutB);
  return e;
}

/// Waves per SIMD the register count allows: 512 VGPRs (arch + acc) per lane per SIMD, allocated in
/// granules of 8, at most 8 waves.
int waves_by_registers(long vgpr_total) {
  if (vgpr_total <= 0) return 8;
  long const granted = (vgpr_total + 7) / 8 * 8;
  return static_cast<int>(std::min<long>(8, 512 / granted));
}

/// Waves per SIMD resident with whole workgroups: limited by registers and by LDS.
int waves_resident(Expect const& e, KernelFacts const& f) {
  int const wg_by_regs = waves_by_registers(f.vgpr) / e.waves_per_simd;
  int const wg_by_lds =
      e.lds_limit / std::max(1, e.lds_bytes + static_cast<int>(std::max(0L, f.group_bytes)));
  return std::min(wg_by_regs, wg_by_lds) * e.waves_per_simd;
}

// ---- the checks ----------------------------------------------------------------------------

std::vector<std::string> check(Expect const& e, KernelFacts const& f) {
  std::vector<std::string> bad;
  auto fail = [&bad](std::string s) { bad.push_back(std::move(s)); };
  if (f.vgpr < 0 || f.private_bytes < 0) fail("no amdhsa.kernels metadata for the kernel");
  for (auto const& [op, n] : f.mfma_ops)
    if (std::find(e.mfma_allowed.begin(), e.mfma_allowed.end(), op) == e.mfma_allowed.end())
      fail(std::to_string(n) + " x " + op + " in the kernel (intended: " + e.mfma_in_loop + ")");
  if (f.k_loops.empty()) fail("no K loop (no depth-1 loop holding an MFMA)");
  for (LoopFacts const& l : f.k_loops) {
    std::string const at = "K loop " + l.header + ": ";
    if (l.mfma != e.mfma_per_iter)
      fail(at + std::to_string(l.mfma) + " MFMAs per iteration, policy needs " +
           std::to_string(e.mfma_per_iter));
    for (auto const& [form, n] : l.mfma_forms)
      if (form != e.mfma_in_loop)
        fail(at + std::to_string(n) + " x '" + form + "', intended '" + e.mfma_in_loop + "'");
    if (l.lds_read_bytes != e.lds_read_bytes)
      fail(at + "LDS fragment reads move " + std::to_string(l.lds_read_bytes) +
           " B per lane, policy needs " + std::to_string(e.lds_read_bytes));
    int narrow = 0;  // reads narrower than the atom's chunk, the vote's dword reads excepted
    for (auto const& [op, n] : l.lds_read_ops)
      narrow += lds_access(op, false).width < e.lds_read_width ? n : 0;
    narrow -= l.lds_read_ops.count("ds_read_b32")
                  ? std::min(l.lds_read_ops.at("ds_read_b32"), e.vote_dword_reads)
                  : 0;
    if (l.lds_reads > 0 && narrow > 0)
      fail(at + "LDS fragment reads split to " + std::to_string(l.lds_read_min_width) +
           "-byte accesses (atom chunk " + std::to_string(e.lds_read_width) + " B)");
    // (4-byte tile loads to LDS: the Blockwise scale loads are dword loads to LDS too)
    int const tile_loads =
        e.tile_load_bytes == 16 ? l.global_x16 : l.global_lds_narrow - e.scale_lds_loads;
    if (tile_loads != e.global_x16)
      fail(at + std::to_string(tile_loads) + " " + std::to_string(e.tile_load_bytes) +
           "-byte tile loads per iteration, tile copy needs " + std::to_string(e.global_x16));
    if (l.serialized_loads > 0)
      fail(at + std::to_string(l.serialized_loads) +
           " 16-byte global loads waited for (s_waitcnt vmcnt) in their own block before any MFMA: "
           "their latency is not hidden behind the multiply");
    if (l.barriers < 1) fail(at + "no s_barrier");
    if (e.staged_write_vmcnt >= 0) {
      // Every staged ds_write behind the schedule's wait (the compiler added none stronger).
      int wrong = 0;
      for (int n : l.vmcnt_before_ds_write) wrong += n != e.staged_write_vmcnt;
      if (static_cast<int>(l.vmcnt_before_ds_write.size()) != e.global_x16 || wrong > 0)
        fail(at + std::to_string(l.vmcnt_before_ds_write.size()) +
             " ds_writes behind a vmcnt wait, " + std::to_string(wrong) + " of them not vmcnt(" +
             std::to_string(e.staged_write_vmcnt) +
             "); the schedule: " + std::to_string(e.global_x16) + " staged loads, each written " +
             std::to_string(e.staged_write_vmcnt) + " loads later");
    }
  }
  if (f.private_bytes != 0)
    fail("scratch: .private_segment_fixed_size " + std::to_string(f.private_bytes));
  if (f.vgpr_spill > 0) fail("VGPR spills: .vgpr_spill_count " + std::to_string(f.vgpr_spill));
  if (f.scratch_instrs > 0)
    fail(std::to_string(f.scratch_instrs) + " scratch instructions (scratch_*)");
  if (f.lds_read_hazards > 0)
    fail(std::to_string(f.lds_read_hazards) +
         " uses of an LDS read's registers before the lgkmcnt wait that lands it");
  if (waves_by_registers(f.vgpr) < e.waves_per_simd)
    fail(std::to_string(f.vgpr) + " VGPRs allow " + std::to_string(waves_by_registers(f.vgpr)) +
         " waves/SIMD; the workgroup needs " + std::to_string(e.waves_per_simd));
  if (e.lds_bytes != e.lds_policy_bytes)
    fail("sizeof(SharedStorage) " + std::to_string(e.lds_bytes) + " != the stages' layouts " +
         std::to_string(e.lds_policy_bytes));
  if (e.lds_bytes + std::max(0L, f.group_bytes) > e.lds_limit)
    fail("LDS " + std::to_string(e.lds_bytes + f.group_bytes) + " B > " +
         std::to_string(e.lds_limit) + " B");
  return bad;
}

// ---- inputs --------------------------------------------------------------------------------

std::string read_file(std::string const& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Case {
  Expect e;
  std::string asm_path;
};

std::vector<Case> const& cases() {
  static std::vector<Case> const all = [] {
    std::vector<Case> v;
#define FP8GEMM_ISA_CASE_942(config) v.push_back({expect<config>(#config), FP8GEMM_ISA_ASM_GFX942});
#define FP8GEMM_ISA_CASE_950(config) v.push_back({expect<config>(#config), FP8GEMM_ISA_ASM_GFX950});
    FP8GEMM_ISA_GFX942_CONFIGS(FP8GEMM_ISA_CASE_942)
    FP8GEMM_ISA_GFX950_CONFIGS(FP8GEMM_ISA_CASE_950)
#undef FP8GEMM_ISA_CASE_942
#undef FP8GEMM_ISA_CASE_950
    return v;
  }();
  return all;
}

std::vector<AsmKernel> const& kernels_in(std::string const& path) {
  static std::map<std::string, std::vector<AsmKernel>> cache;
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, parse_asm(read_file(path))).first;
  return it->second;
}

/// The kernel whose symbol names the config: "<len><name>E" in the mangled name.
AsmKernel const* find_kernel(std::vector<AsmKernel> const& ks, std::string const& config) {
  std::string const needle = std::to_string(config.size()) + config + "E";
  for (auto const& k : ks)
    if (k.symbol.find(needle) != std::string::npos) return &k;
  return nullptr;
}

std::string shell(char const* cmd) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd, "r"), pclose);
  if (!p) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p.get())) out += buf;
  return trim(out.substr(0, out.find('\n')));
}

std::string fmt(char const* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// ---- the steady-state K loop (steady_state.hpp) ---------------------------------------------

/// One K loop's steady-state trip: the path, its counts and llvm-mca's price of it.
struct LoopSteadyState {
  std::string header;
  SteadyStatePath path;
  TripCounts counts;
  McaResult mca;        // the FP8 rate by stand-in MFMAs (the table's share)
  McaResult mca_twice;  // the FP8 rate by MFMAs written twice (the previous pricing)
  int fp8_passes = 0;   // matrix-pipe passes of the trip's MFMAs at the FP8 rate (mfma_fp8_passes)
};

/// Every K loop of the kernel (one since GemmKernel::run has one mainloop call), measured; the
/// path, its decisions and the llvm-mca input are written to
/// FP8GEMM_ISA_STEADY_STATE_DIR/<config>.loopN.*.
std::vector<LoopSteadyState> measure_steady_state(std::string const& name, std::string const& arch,
                                                  AsmKernel const& k) {
  std::vector<LoopSteadyState> out;
  std::vector<std::string> const headers = k_loop_headers(k);
  for (std::size_t l = 0; l < headers.size(); ++l) {
    LoopSteadyState s;
    s.header = headers[l];
    s.path = steady_state_path(k, s.header);
    s.counts = count_trip(s.path.instrs);
    for (Instr const* i : s.path.instrs) s.fp8_passes += mfma_fp8_passes(*i);
    std::string const base =
        std::string(FP8GEMM_ISA_STEADY_STATE_DIR) + "/" + name + ".loop" + std::to_string(l + 1);
    std::ofstream listing(base + ".path.txt");
    listing << name << " (" << arch << "), K loop " << l + 1 << " of " << headers.size()
            << ", header " << s.header
            << (s.path.error.empty() ? "" : "\nNO STEADY-STATE TRIP: " + s.path.error)
            << "\n\nblocks:";
    for (auto const& b : s.path.blocks) listing << " " << b;
    listing << "\n\ndecisions:\n";
    for (auto const& d : s.path.decisions) listing << "  " << d << "\n";
    listing << "\ninstructions (" << s.path.instrs.size() << "):\n";
    for (Instr const* i : s.path.instrs) listing << "  " << i->text << "\n";
    if (s.path.error.empty()) {
      TripPrice const price = price_trip(FP8GEMM_ISA_LLVM_MCA, s.path.instrs, arch, base);
      s.mca = price.stand_in;
      s.mca_twice = price.twice;
    } else {
      s.mca.error = s.mca_twice.error = "no steady-state trip";
    }
    out.push_back(std::move(s));
  }
  return out;
}

/// What the steady-state trip must be: one K tile of the policy, its next tile prefetched, no
/// tail copies, and numbers inside their possible ranges.
std::vector<std::string> check_steady_state(Expect const& e, LoopSteadyState const& s) {
  std::vector<std::string> bad;
  auto fail = [&bad, &s](std::string const& why) {
    bad.push_back("K loop " + s.header + ": " + why);
  };
  if (!s.path.error.empty()) {
    fail("no steady-state trip: " + s.path.error);
    return bad;
  }
  TripCounts const& c = s.counts;
  if (c.mfma != e.mfma_per_iter)
    fail(std::to_string(c.mfma) + " MFMAs in the trip, one K tile of the policy is " +
         std::to_string(e.mfma_per_iter));
  if (c.staged_x16 + c.lds_direct_loads != e.global_x16 + e.scale_lds_loads)
    fail(std::to_string(c.staged_x16 + c.lds_direct_loads) +
         " tile loads (16-byte staged + direct-to-LDS) in the trip; the next tile's copy is " +
         std::to_string(e.global_x16) + " (+ " + std::to_string(e.scale_lds_loads) +
         " scale loads to LDS)");
  if (c.staged_narrow > e.scale_bytes)
    fail(std::to_string(c.staged_narrow) + " 1/2-byte loads in the trip (" +
         std::to_string(e.scale_bytes) + " E8M0 scale bytes expected): a tail copy");
  if (c.zero_wait_before_mfma > c.waitcnt_zero || c.waitcnt_zero > c.waitcnt)
    fail("wait counts inconsistent");
  if (c.longest_mfma_run < 1 || c.longest_mfma_run > c.mfma) fail("longest MFMA run out of range");
  if (c.nonmfma_per_mfma() < 0.0 || c.nonmfma_per_mfma() > 100.0)
    fail("non-MFMA instructions per MFMA out of range");
  if (!s.mca.error.empty()) {
    fail("llvm-mca: " + s.mca.error);
    return bad;
  }
  if (!(s.mca.share() > 0.0 && s.mca.share() <= 1.0))
    fail("matrix-pipe share " + fmt("%.3f", s.mca.share()) + " out of (0, 1]");
  for (McaResult const* m : {&s.mca, &s.mca_twice})
    if (m->error.empty() && std::abs(m->matrix_per_trip - s.fp8_passes) > 0.005 * s.fp8_passes)
      fail("llvm-mca holds the matrix pipe " + fmt("%.1f", m->matrix_per_trip) +
           " cycles per trip, the FP8 rate is " + std::to_string(s.fp8_passes) +
           " passes: the pricing is off");
  if (!s.mca_twice.error.empty()) fail("llvm-mca (MFMAs written twice): " + s.mca_twice.error);
  return bad;
}

// ---- the tests -----------------------------------------------------------------------------

class IsaKernel : public ::testing::TestWithParam<int> {};

TEST_P(IsaKernel, MatchesPolicy) {
  Case const& c = cases()[GetParam()];
  auto const& ks = kernels_in(c.asm_path);
  ASSERT_FALSE(ks.empty()) << "no kernels parsed from " << c.asm_path;
  AsmKernel const* k = find_kernel(ks, c.e.name);
  ASSERT_NE(k, nullptr) << c.e.name << ": kernel not found in " << c.asm_path;
  KernelFacts const f = analyze(*k);
  std::vector<std::string> const bad = check(c.e, f);
  for (auto const& b : bad)
    ADD_FAILURE() << c.e.name << " (" << c.e.arch << ", " << c.e.policy << "): " << b;
  if (f.sgpr_spill > 0)
    std::printf("note: %s: %ld SGPR spills (to VGPR lanes via v_writelane, not memory)\n",
                c.e.name.c_str(), f.sgpr_spill);
}

INSTANTIATE_TEST_SUITE_P(Configs, IsaKernel, ::testing::Range(0, static_cast<int>(cases().size())),
                         [](::testing::TestParamInfo<int> const& i) {
                           return cases()[i.param].e.name;
                         });

TEST(IsaToolchain, LlvmMca22Found) {
  std::string const mca = FP8GEMM_ISA_LLVM_MCA;
  ASSERT_FALSE(mca.empty())
      << "llvm-mca-22 not found: the steady-state report prices the K loop with it "
         "(scripts/install_deps.sh installs Debian's llvm-22)";
  std::string const version =
      shell(("'" + mca + "' --version 2>&1 | grep -i 'llvm version'").c_str());
  EXPECT_NE(version.find("version 22."), std::string::npos) << mca << ": " << version;
}

class IsaSteadyState : public ::testing::TestWithParam<int> {};

/// Every K loop of every config has a steady-state trip that is one K tile of the policy, with the
/// counts in range and llvm-mca's price of it.
TEST_P(IsaSteadyState, TripMeasured) {
  Case const& c = cases()[GetParam()];
  AsmKernel const* k = find_kernel(kernels_in(c.asm_path), c.e.name);
  ASSERT_NE(k, nullptr) << c.e.name << ": kernel not found in " << c.asm_path;
  std::vector<LoopSteadyState> const loops = measure_steady_state(c.e.name, c.e.arch, *k);
  ASSERT_FALSE(loops.empty()) << c.e.name << ": no K loop";
  for (LoopSteadyState const& l : loops) {
    for (auto const& b : check_steady_state(c.e, l))
      ADD_FAILURE() << c.e.name << " (" << c.e.arch << "): " << b;
    for (auto const& d : l.path.uniform)
      std::printf("%s %s uniform: %s\n", c.e.name.c_str(), l.header.c_str(), d.c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, IsaSteadyState,
                         ::testing::Range(0, static_cast<int>(cases().size())),
                         [](::testing::TestParamInfo<int> const& i) {
                           return cases()[i.param].e.name;
                         });

/// One row of the steady-state table; per K step values are per wave.
struct SteadyStateRow {
  std::string name, arch, k_step, trip, mfma, waits, zero_waits, nonmfma, run, staged, direct,
      scratch, vgpr, lds, mca, share, share_twice, other, checks;
};

std::string g3(double v) {
  return fmt("%.3g", v);
}

/// HipKittens' 8-wave FP8 GEMM (HazyResearch/HipKittens f09e9685c4c6,
/// kernels/gemm/fp8fp32/FP8_8wave/8_wave.cu, matmul_device<8192, 8192, 8192>: 256x256x128 tile, 8
/// waves, 16x16x128 f8f6f4) compiled by the same clang 22.1.8 with the same ROCm 6.4 headers
/// (the project's FP8GEMM_HIP_FLAGS with -std=c++20, plus `-isystem <rocm>/usr/include/hip` for
/// hip_bf16.h, an empty-bodied omp.h stub for the host code, -Wno-invalid-constexpr, -I include
/// -DKITTENS_CDNA4 --offload-arch=gfx950 --offload-device-only -S -O3) and measured
/// once by fp8gemm_isa_steady_state (`--kernel matmul_device --arch gfx950 --mfma-per-kstep 32`),
/// llvm-mca 22.1.8. Frozen: the peer is not built here. Its K loop is unrolled: one trip is 31 K
/// steps (3586 instructions in one block); the figures are per K step.
SteadyStateRow const kHipKittens8Wave = {"HipKittens 8-wave (frozen)",
                                         "gfx950",
                                         "128",
                                         "3586 / 1 (31 K steps)",
                                         "32",
                                         "5.06 (3.06)",
                                         "0 (3)",
                                         "2.61",
                                         "8",
                                         "0 (0)",
                                         "8",
                                         "112 (7.32)",
                                         "256 (256+0)",
                                         "131072",
                                         "316.7 (256.0)",
                                         "0.808",
                                         "0.768",
                                         "-",
                                         "-"};

SteadyStateRow steady_state_row(Case const& c, KernelFacts const& f,
                                std::vector<LoopSteadyState> const& loops) {
  SteadyStateRow r;
  r.name = c.e.name, r.arch = c.e.arch, r.k_step = std::to_string(c.e.block_k);
  r.vgpr = std::to_string(f.vgpr) + " (" + std::to_string(f.arch_vgpr) + "+" +
           std::to_string(f.agpr) + ")";
  r.lds = std::to_string(std::max(0L, f.group_bytes) + c.e.lds_bytes);
  std::vector<std::string> bad;
  for (auto const& l : loops)
    for (auto const& b : check_steady_state(c.e, l)) bad.push_back(b);
  r.checks = bad.empty() && !loops.empty()
                 ? "pass"
                 : "FAIL: " + std::to_string(std::max<std::size_t>(1, bad.size()));
  if (loops.empty() || !loops.front().path.error.empty()) {
    r.trip = loops.empty() ? "no K loop" : "no steady-state trip";
    return r;
  }
  LoopSteadyState const& l = loops.front();
  TripCounts const& t = l.counts;
  double const ksteps = double(t.mfma) / std::max(1, c.e.mfma_per_iter);
  auto per = [ksteps](double v) { return g3(v / ksteps); };
  r.trip = std::to_string(t.instrs) + " / " + std::to_string(l.path.blocks.size());
  if (ksteps != 1.0) r.trip += " (" + g3(ksteps) + " K steps)";
  r.mfma = per(t.mfma);
  r.waits = per(t.waitcnt) + " (" + per(t.waitcnt_zero) + ")";
  r.zero_waits = per(t.zero_wait_before_mfma) + " (" + per(t.zero_wait_before_mfma_loose) + ")";
  r.nonmfma = fmt("%.2f", t.nonmfma_per_mfma());
  r.run = std::to_string(t.longest_mfma_run);
  r.staged = per(t.staged_loads) + " (" + per(t.staged_load_bytes) + ")";
  r.direct = per(t.lds_direct_loads);
  r.scratch = std::to_string(f.private_bytes) + " (" + per(t.scratch_instrs) + ")";
  if (l.mca.error.empty()) {
    r.mca = fmt("%.1f", l.mca.cycles_per_trip / ksteps) + " (" +
            fmt("%.1f", l.mca.matrix_per_trip / ksteps) + ")";
    r.share = fmt("%.3f", l.mca.share());
    r.share_twice = l.mca_twice.error.empty() ? fmt("%.3f", l.mca_twice.share()) : "none";
  } else {
    r.mca = "llvm-mca: " + l.mca.error;
    r.share = r.share_twice = "none (no llvm-mca-22)";
  }
  for (std::size_t o = 1; o < loops.size(); ++o) {
    LoopSteadyState const& x = loops[o];
    r.other += (r.other.empty() ? "" : "; ") +
               (x.path.error.empty()
                    ? std::to_string(x.counts.instrs) + ", " +
                          (x.mca.error.empty() ? fmt("%.3f", x.mca.share()) : std::string("no mca"))
                    : std::string("no trip"));
  }
  if (r.other.empty()) r.other = "-";
  return r;
}

void write_row(std::ostream& md, SteadyStateRow const& r) {
  md << "| " << r.name << " | " << r.arch << " | " << r.k_step << " | " << r.trip << " | " << r.mfma
     << " | " << r.waits << " | " << r.zero_waits << " | " << r.nonmfma << " | " << r.run << " | "
     << r.staged << " | " << r.direct << " | " << r.scratch << " | " << r.vgpr << " | " << r.lds
     << " | " << r.mca << " | " << r.share << " | " << r.share_twice << " | " << r.other << " | "
     << r.checks << " |\n";
}

/// The steady-state section of the report: definition, pricing, the table, the uniform decisions.
void write_steady_state_section(std::ostream& md) {
  std::string const mca = FP8GEMM_ISA_LLVM_MCA;
  std::string const mca_version =
      mca.empty()
          ? std::string("NOT FOUND")
          : shell(("'" + mca + "' --version 2>&1 | grep -io 'llvm version [0-9.]*'").c_str());
  md << "\n## Steady-state K loop\n\n"
     << "Per K step (one trip of the K loop = one block tile `kBlockK` deep) per wave, over the "
        "instructions "
        "one wave executes in one *steady-state trip* (`tests/isa/steady_state.hpp`):\n\n"
     << "- the trip starts at the K loop's header with every lane active and ends when control is "
        "back at "
        "the header; it never leaves the loop and never enters a nested (tail) loop;\n"
     << "- per-lane branches (`s_cbranch_execz/execnz`; `vccz/vccnz` on a lane mask) follow the "
        "lane masks "
        "under one assumption: every per-lane condition (`v_cmp`) holds on every lane, and masks "
        "computed "
        "before the loop (or reloaded from a spill lane) are all lanes. Bounds checks pass; the "
        "byte-wise "
        "tail copies are not on the path;\n"
     << "- uniform branches (`s_cbranch_scc0/scc1`; `vccz/vccnz` on scalar data) are walked both "
        "ways: a "
        "side that leaves the loop is not a steady-state trip, and of the sides that come back to "
        "the header "
        "the one executing more instructions is taken. In fp8gemm's loop these are the prefetch "
        "test "
        "(`has_ahead`), the promotion's \"chunk inside K\" test and the latch: the trip taken "
        "prefetches the "
        "next tile and promotes, so it is neither the last trip nor a tail. Every decision is in "
        "`build/<preset>/tests/isa/steady_state/<config>.loopN.path.txt` with the path's "
        "instructions; the "
        "uniform ones are listed below the table.\n\n"
     << "Columns: *`s_waitcnt` (to zero)*: waits in the trip (those waiting for a counter to reach "
        "0); "
        "*waits to zero directly before an MFMA*: a wait to zero whose next instruction, past "
        "other waits, is "
        "an MFMA (in parentheses: looking past `s_setprio`/`s_nop` as well; the trip wraps "
        "around); "
        "*non-MFMA per MFMA*: every other instruction in the trip (branches, waits and barriers "
        "included) per "
        "MFMA; *longest MFMA run*: MFMAs back to back; *register-staged global loads*: "
        "global/buffer loads "
        "into VGPRs in the trip (bytes per lane); *direct-to-LDS*: `buffer_load ... lds`; "
        "*scratch*: the "
        "kernel's private segment bytes (scratch instructions per K step in the trip); *VGPR*: the "
        "kernel's "
        "`.vgpr_count` (arch + AGPR); *LDS*: static + dynamic bytes per workgroup; *other K loop*: "
        "the "
        "kernel's other K loops, if any (trip instructions, share; none since the unsplit and "
        "split-K paths share one mainloop call).\n\n"
     << "*llvm-mca*: "
     << (mca.empty() ? std::string("llvm-mca-22 NOT FOUND: no prices (the ctest fails)")
                     : mca_version)
     << ", `-mtriple=amdgcn-amd-amdhsa -mcpu=gfx950|gfx942 -iterations=100` on the trip's "
        "instructions in order (branches kept: they take issue slots; llvm-mca does not follow "
        "them). Cycles per K step, in parentheses the cycles the matrix pipe (llvm-mca resource "
        "`HWXDL`) is held; *share* = matrix-pipe cycles / cycles.\n\n"
        "**How the f8f6f4 MFMA is priced.** llvm-mca's gfx950 model gives every "
        "`v_mfma_*_f8f6f4` form the FP4/FP6 rate (16x16x128: 4 passes = 16 clocks; 32x32x64: 8), "
        "but with FP8/BF8 operands (all of fp8gemm's gfx950 atoms) the instruction takes 8 passes "
        "= 32 clocks (32x32x64: 16 passes = 64 clocks). In the llvm-mca input each such MFMA is "
        "replaced by a *stand-in*: the MFMA with the same D and C that the model prices at the FP8 "
        "rate in one instruction, `v_mfma_f32_16x16x4_f32` (8 passes; `v_mfma_f32_32x32x2_f32`, "
        "16, for 32x32x64). Its A and B are one register each, so of all the registers the "
        "original reads (A, B and, scaled, the scale operands) it reads the two the model makes "
        "ready last (writer's llvm-mca latency minus the instructions since it, around the "
        "trip): it waits for what the original waits for longest. Self-tests pin the stand-ins' "
        "passes, check that a chain of them is priced at the FP8 rate, that independent "
        "instructions after one issue while it runs, and the source choice; every config's check "
        "compares `HWXDL` with the FP8-rate passes of its MFMAs. *share, MFMA written twice*: the "
        "pricing of this report until 2026-12-01 (thirteenth session), each such MFMA written "
        "twice. llvm-mca issues "
        "in order, and the second copy waits at issue for the pipe the first holds, so at most 3 "
        "instructions overlap an MFMA's 8 passes instead of the 7 the SIMD issues from the wave "
        "while it runs (an MFMA's result is read only after its passes plus a few wait states, "
        "which the compiler fills with independent instructions or `s_nop`: the hazard tables in "
        "LLVM's GCNHazardRecognizer). That cost least where few instructions sit between MFMAs "
        "(HipKittens 0.808 / 0.768, the gfx950 per-tensor loop 0.826 / 0.773) and most in a loop "
        "with many (the Blockwise promotion's FMAs: 0.755 / 0.584); there the twice column also "
        "carries a false dependency where the compiler reused an MFMA's A or B registers for its "
        "D (the second copy reads what the first wrote: 9 of the 32 MFMAs of Blockwise's first "
        "loop). gfx942's fp8 MFMAs (16x16x32: 4 passes, 32x32x16: 8) are "
        "priced at "
        "their rate and left alone (both columns agree there). llvm-mca models one wave alone: no "
        "second wave on the SIMD, `s_barrier` free, no LDS bank conflicts, no memory system, "
        "latencies not calibrated for CDNA. The share compares kernels compiled by the same "
        "compiler; it is not a throughput.\n\n";
  md << "| config | arch | K step | trip: instrs / blocks | MFMAs | `s_waitcnt` (to zero) | waits "
        "to zero directly "
        "before an MFMA (past `s_setprio`/`s_nop`) | non-MFMA per MFMA | longest MFMA run | "
        "register-staged "
        "global loads (B/lane) | direct-to-LDS loads | scratch B (instrs) | VGPR (arch+AGPR) | LDS "
        "B | llvm-mca "
        "cycles (matrix pipe) | matrix-pipe share | share, MFMA written twice | other K loop: "
        "instrs, "
        "share | checks |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::vector<std::string> uniform, failures;
  for (Case const& c : cases()) {
    AsmKernel const* k = find_kernel(kernels_in(c.asm_path), c.e.name);
    if (k == nullptr) {
      SteadyStateRow r;
      r.name = c.e.name, r.arch = c.e.arch, r.k_step = "kernel not found", r.checks = "FAIL";
      write_row(md, r);
      failures.push_back(c.e.name + ": kernel not found");
      continue;
    }
    std::vector<LoopSteadyState> const loops = measure_steady_state(c.e.name, c.e.arch, *k);
    write_row(md, steady_state_row(c, analyze(*k), loops));
    if (!loops.empty()) {
      std::string u;
      for (auto const& d : loops.front().path.uniform)
        u += (u.empty() ? "" : "; ") + std::string("`") + d + "`";
      uniform.push_back(c.e.name + " (" + loops.front().header + "): " + (u.empty() ? "none" : u));
    }
    for (auto const& l : loops)
      for (auto const& b : check_steady_state(c.e, l)) failures.push_back(c.e.name + ": " + b);
  }
  write_row(md, kHipKittens8Wave);
  md << "\nHipKittens row: HazyResearch/HipKittens f09e9685c4c6 "
        "`kernels/gemm/fp8fp32/FP8_8wave/8_wave.cu` "
        "(`matmul_device<8192,8192,8192>`, the same 256x256x128 tile, 8 waves and 16x16x128 f8f6f4 "
        "MFMA), "
        "compiled once by the same clang with the same ROCm headers (the project's HIP flags with "
        "`-std=c++20 -DKITTENS_CDNA4 --offload-arch=gfx950 --offload-device-only -S -O3`, plus "
        "`-isystem <rocm>/usr/include/hip` for `hip_bf16.h`, an `omp.h` stub for its host code and "
        "`-Wno-invalid-constexpr`) and measured by the same code: "
        "`fp8gemm_isa_steady_state 8_wave.s --kernel matmul_device --arch gfx950 --mfma-per-kstep "
        "32`. "
        "Frozen (the peer is not built in CI); re-measured 2026-12-01 (thirteenth session) "
        "with the stand-in pricing, the same counts. Its K loop is unrolled (one trip: 31 K "
        "steps); its "
        "waits to "
        "zero sit behind `s_setprio 1` after a barrier at which the other wave of the SIMD "
        "computed, which "
        "the strict column does not count and the parenthesised one does.\n\n"
     << "Cross-check (2026-11-30, at 0a78b47, re-run 2026-12-01 at 2429a18 and 2026-12-02 at "
        "5578046 with the same figures, "
        "with the scripts behind issue 11's table, "
        "`../shared/tools/cdna-static/run_fp8gemm_static.sh`): on Gfx950E4m3PerTensorNk (the "
        "direct-to-LDS ping-pong mainloop) they walk the same 126 instructions and give the same "
        "counts (32 MFMAs, 8 `buffer_load_dwordx4 ... lds`, 24 `ds_read_b128`, 8 barriers, 8 "
        "`s_setprio`, 4 waits: vmcnt(9) x2, vmcnt(11), vmcnt(10), each with lgkmcnt(0); 0 waits to "
        "zero directly before an MFMA; 2.94 non-MFMA per MFMA; 0 staged loads; 0 scratch); their "
        "share is 0.732 against 0.773 here with the MFMAs written twice (the column beside the "
        "share; 0.826 with the stand-ins). The difference is the pricing, not the path: they run "
        "llvm-mca on the MFMAs at llvm-mca's FP4 rate (221.9 cycles) and add the FP8 rate's 4 "
        "extra passes per MFMA afterwards (+128 cycles, 349.9), so nothing overlaps the extra "
        "passes; written twice into the llvm-mca input, up to 3 instructions do (330-331 "
        "cycles); with the stand-ins, as many as issue while the MFMA runs (310.0). On "
        "HipKittens, whose other instructions sit in phases of their own, their pricing and the "
        "doubled one give 0.767 / 0.768, the stand-ins 0.808. Before this mainloop (at 6be1108, "
        "the "
        "register-staged LdsMultistageMainloop) they agreed on the counts too (234 instructions, "
        "14 (11) waits, 8 before an MFMA, 6.31, 8 staged loads) and gave 0.545 against 0.518 here "
        "(they drop the trip's branches).\n\n"
     << "gfx942: Gfx942E4m3PerTensorNk (the default) and Gfx942E4m3PerTensorNkDirectToLds run the "
        "same mainloop and schedule with the tile loads through registers (6 "
        "`buffer_load_dwordx4` + 6 `ds_write_b128` per K step) and with gfx942's 4-byte "
        "direct-to-LDS loads (24 `buffer_load_dword ... lds`, each behind an M0 write): the "
        "comparison, and why the default loads through registers, is in "
        "`docs/gfx942_tile_loads.md`.\n\n"
     << "Uniform decisions of the reported (first) K loop:\n\n";
  for (auto const& u : uniform) md << "- " << u << "\n";
  md << "\nSteady-state failures:\n\n";
  for (auto const& f : failures) md << "- " << f << "\n";
  if (failures.empty()) md << "- none\n";
}

/// The cells of a markdown table row "| a | b |": {"a", "b"}.
std::vector<std::string> table_cells(std::string const& row) {
  std::vector<std::string> cells;
  std::size_t begin = row.find('|') + 1;
  for (std::size_t end; (end = row.find('|', begin)) != std::string::npos; begin = end + 1)
    cells.push_back(trim(row.substr(begin, end - begin)));
  return cells;
}

/// Issue 11's static bar, kept by CI (stand-in pricing, docs/isa_report.md): the gfx950 default
/// (PerTensor, mk_nk_mn) at least HipKittens' 8-wave share under the same pricing (the frozen
/// row: re-measure it with fp8gemm_isa_steady_state whenever the pricing changes), no wait to
/// zero directly before an MFMA (not even past s_setprio / s_nop), at most 3 other instructions
/// per MFMA, no register-staged global loads, no scratch; the other gfx950 defaults (Blockwise,
/// MX-32), Cdna3Default and gfx942 Blockwise at least 0.70.
TEST(IsaSteadyState, DefaultsMeetTheStaticBar) {
  double const hipkittens = std::stod(kHipKittens8Wave.share);
  struct Bar {
    char const* name;
    double share;
    bool strict;  // the gfx950 default's other conditions
  };
  for (Bar const& bar :
       {Bar{"Gfx950E4m3PerTensorNk", hipkittens, true}, Bar{"Gfx950E4m3BlockwiseNk", 0.70, false},
        Bar{"Gfx950E4m3Mx32Nk", 0.70, false}, Bar{"Gfx942E4m3PerTensorNk", 0.70, false},
        Bar{"Gfx942E4m3BlockwiseNk", 0.70, false}}) {
    Case const* c = nullptr;
    for (Case const& x : cases())
      if (x.e.name == bar.name) c = &x;
    ASSERT_NE(c, nullptr) << bar.name << ": no such config";
    AsmKernel const* k = find_kernel(kernels_in(c->asm_path), c->e.name);
    ASSERT_NE(k, nullptr) << bar.name << ": kernel not found";
    std::vector<LoopSteadyState> const loops = measure_steady_state(c->e.name, c->e.arch, *k);
    ASSERT_FALSE(loops.empty()) << bar.name << ": no K loop";
    LoopSteadyState const& l = loops.front();
    ASSERT_TRUE(l.mca.error.empty()) << bar.name << ": " << l.mca.error;
    EXPECT_GE(l.mca.share(), bar.share) << bar.name << ": matrix-pipe share";
    if (!bar.strict) continue;
    EXPECT_EQ(l.counts.zero_wait_before_mfma, 0) << bar.name;
    EXPECT_EQ(l.counts.zero_wait_before_mfma_loose, 0) << bar.name;
    EXPECT_LE(l.counts.nonmfma_per_mfma(), 3.0) << bar.name;
    EXPECT_EQ(l.counts.staged_loads, 0) << bar.name;
    EXPECT_EQ(analyze(*k).private_bytes, 0) << bar.name << ": scratch";
  }
}

/// The per-config table, on stdout and as markdown (path: FP8GEMM_ISA_REPORT_PATH). It must say
/// what the checks say: one row per config in order, every row as wide as the header and marked
/// "pass", no failure listed; and the file must hold exactly what was printed.
TEST(IsaReport, Table) {
  std::ostringstream md;
  std::string const src = FP8GEMM_SOURCE_DIR;
  std::string const commit = shell(("git -C '" + src + "' log -1 --format=%h 2>/dev/null").c_str());
  std::string const dirty =
      shell(("git -C '" + src + "' status --porcelain -- include tests/isa 2>/dev/null | head -1")
                .c_str());
  char date[32];
  std::time_t const now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  md << "# ISA report: fp8gemm GEMM kernels on gfx942 / gfx950\n\n"
     << "Generated by `tests/isa/isa_check_test.cpp` (`ctest -L isa`) on " << date
     << " from commit " << (commit.empty() ? "unknown" : commit)
     << (dirty.empty() ? "" : " (with uncommitted changes in include/ or tests/isa/)") << ", clang "
     << FP8GEMM_ISA_CLANG_VERSION << ", `--offload-device-only -S -O3`. Static analysis of the "
     << "emitted code only: no CDNA hardware ran these kernels and no throughput here is "
        "measured.\n\n"
     << "Per K-iteration counts are per wave (one block tile K step, all k-steps and atoms "
        "unrolled), "
        "taken over the depth-1 blocks of the K loop (LLVM loop annotations; tail paths excluded). "
        "Balance columns assume one workgroup per CU and use MFMA cycles per instruction from "
        "`../shared/notes/amd-cdna-anchors.md` (team research notes, beside the repo) §1.2 "
        "(16x16x32 fp8 on CDNA3: 16 cycles; 16x16x128 f8f6f4 with FP8 "
        "operands on CDNA4: 32 cycles; source: AMD matrix instruction calculator / ROCm blog "
        "\"Matrix Core Programming on AMD CDNA3 and CDNA4\") and LDS bandwidth from §3 (128 "
        "B/clk/CU "
        "CDNA3, 256 B/clk/CU CDNA4).\n\n";
  md << "| config | arch | policy | VGPR (arch+AGPR) | SGPR | SGPR spill | scratch B | LDS B "
        "(static+dyn / max) "
        "| waves/SIMD: regs / resident | K loops | MFMA/iter (form) | ds_read/iter (B/lane) | "
        "ds_write/iter "
        "| global x16/iter | other VMEM loads/iter (+nested) | MFMA clk/iter/SIMD | LDS "
        "clk/iter/CU (rd+wr) "
        "| global B/iter/CU (B/clk) | checks |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (Case const& c : cases()) {
    auto const& ks = kernels_in(c.asm_path);
    AsmKernel const* k = find_kernel(ks, c.e.name);
    if (k == nullptr) {
      md << "| " << c.e.name << " | " << c.e.arch << " | kernel not found |" << std::string(15, '|')
         << " FAIL |\n";
      continue;
    }
    KernelFacts const f = analyze(*k);
    std::vector<std::string> const bad = check(c.e, f);
    LoopFacts const l = f.k_loops.empty() ? LoopFacts{} : f.k_loops.front();
    auto ops = [](std::map<std::string, int> const& m) {
      std::string s;
      for (auto const& [op, n] : m) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + op;
      return s.empty() ? std::string("-") : s;
    };
    std::string forms;
    for (auto const& [form, n] : l.mfma_forms) forms += (forms.empty() ? "" : ", ") + form;
    long const mfma_clk = static_cast<long>(l.mfma) * c.e.mfma_cycles * c.e.waves_per_simd;
    long const lds_rd = static_cast<long>(l.lds_read_bytes) * 64 * c.e.waves;
    long const lds_wr = static_cast<long>(l.lds_write_bytes) * 64 * c.e.waves;
    long const glb =
        (static_cast<long>(l.global_x16) * 16 + l.global_lds_narrow * 4L) * 64 * c.e.waves;
    md << "| " << c.e.name << " | " << c.e.arch << " | " << c.e.policy << " | " << f.vgpr << " ("
       << f.arch_vgpr << "+" << f.agpr << ") | " << f.sgpr << " | " << f.sgpr_spill << " | "
       << f.private_bytes << " | " << f.group_bytes << "+" << c.e.lds_bytes << " / "
       << c.e.lds_limit << " | " << waves_by_registers(f.vgpr) << " / " << waves_resident(c.e, f)
       << " (compiler: " << f.occupancy << ") | " << f.k_loops.size() << " | " << l.mfma << " ("
       << forms << ") | " << l.lds_reads << ": " << ops(l.lds_read_ops) << " (" << l.lds_read_bytes
       << ") | " << ops(l.lds_write_ops) << " | " << l.global_x16
       << (l.global_lds_narrow > 0 ? " (+" + std::to_string(l.global_lds_narrow) + " x4 lds)" : "")
       << " | " << l.global_narrow << " (+" << l.global_narrow_nested << ") | " << mfma_clk << " | "
       << (lds_rd + lds_wr + c.e.lds_bytes_per_clk - 1) / c.e.lds_bytes_per_clk << " (" << lds_rd
       << "+" << lds_wr << " B) | " << glb << " ("
       << fmt("%.1f", mfma_clk > 0 ? double(glb) / mfma_clk : 0.0) << ") | "
       << (bad.empty() ? "pass" : "FAIL: " + std::to_string(bad.size())) << " |\n";
  }
  md << "\nColumns: *waves/SIMD regs* = min(8, 512 / VGPRs rounded up to 8); *resident* = whole "
        "workgroups that fit both registers and LDS, in waves per SIMD (the workgroup's waves "
        "spread over "
        "the CU's 4 SIMDs); *compiler* = the `; Occupancy:` comment. *ds_read B/lane* = fragment "
        "bytes "
        "one lane reads per K-iteration. *global x16* = 16-byte tile loads per lane per "
        "K-iteration (+ 4-byte direct-to-LDS tile loads, gfx942); "
        "*other VMEM loads* = 1/2/4-byte global loads in the K loop's depth-1 blocks: scale loads "
        "(K-blocked granularities) and the unrolled K/N-tail byte paths (executed only for partial "
        "tiles); "
        "*+nested* = the same in nested (tail) loops. *B/clk* = global bytes per MFMA-bound clock "
        "per CU.\n\n"
        "Failures:\n\n";
  bool any = false;
  for (Case const& c : cases()) {
    AsmKernel const* k = find_kernel(kernels_in(c.asm_path), c.e.name);
    if (k == nullptr) continue;
    for (auto const& b : check(c.e, analyze(*k)))
      md << "- " << c.e.name << ": " << b << "\n", any = true;
  }
  if (!any) md << "- none\n";
  write_steady_state_section(md);
  std::string const text = md.str();
  std::printf("%s", text.c_str());
  std::ofstream(FP8GEMM_ISA_REPORT_PATH) << text;

  std::vector<std::vector<std::string>> table;  // the first table: a header, one row per config
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) == 0) {
      table.push_back(table_cells(line));
    } else if (!table.empty() && line.rfind("|", 0) != 0) {
      break;  // the first table ended (the steady-state section has tables of its own)
    }
  }
  ASSERT_EQ(table.size(), cases().size() + 1) << "a header and one row per config";
  EXPECT_EQ(table[0].front(), "config");
  EXPECT_EQ(table[0].back(), "checks");
  for (std::size_t i = 0; i < cases().size(); ++i) {
    std::vector<std::string> const& row = table[i + 1];
    EXPECT_EQ(row.front(), cases()[i].e.name);
    EXPECT_EQ(row.size(), table[0].size()) << row.front();
    EXPECT_EQ(row.back(), "pass") << row.front();
  }
  EXPECT_NE(text.find("Failures:\n\n- none\n"), std::string::npos);
  // The report is on disk and has a priced steady-state row for every config.
  std::string const written = read_file(FP8GEMM_ISA_REPORT_PATH);
  ASSERT_EQ(written, text) << "report not written to " << FP8GEMM_ISA_REPORT_PATH;
  std::string const section =
      written.substr(std::min(written.size(), written.find("## Steady-state K loop")));
  ASSERT_FALSE(section.empty()) << "no steady-state section";
  for (Case const& c : cases()) {
    std::string const row = "| " + c.e.name + " | " + c.e.arch + " | ";
    auto const at = section.find(row);
    ASSERT_NE(at, std::string::npos) << c.e.name << ": no steady-state row";
    std::string const line = section.substr(at, section.find('\n', at) - at);
    EXPECT_EQ(line.find("llvm-mca"), std::string::npos) << c.e.name << ": not priced: " << line;
    EXPECT_NE(line.find("| pass |"), std::string::npos) << c.e.name << ": " << line;
  }
}

// ---- the checker itself must be able to fail --------------------------------------------------

/// Mutates real kernel text and checks that the checker reports each defect.
class IsaCheckerSelfTest : public ::testing::Test {
 protected:
  static std::vector<std::string> failures_after(Case const& c, std::string const& from,
                                                 std::string const& to) {
    std::string text = read_file(c.asm_path);
    std::size_t pos = 0;
    int replaced = 0;
    while ((pos = text.find(from, pos)) != std::string::npos)
      text.replace(pos, from.size(), to), pos += to.size(), ++replaced;
    EXPECT_GT(replaced, 0) << "mutation '" << from << "' found nothing";
    std::vector<AsmKernel> const ks = parse_asm(text);
    AsmKernel const* k = find_kernel(ks, c.e.name);
    EXPECT_NE(k, nullptr);
    return k ? check(c.e, analyze(*k)) : std::vector<std::string>{};
  }
  static bool mentions(std::vector<std::string> const& bad, std::string const& what) {
    return std::any_of(bad.begin(), bad.end(),
                       [&](auto const& b) { return b.find(what) != std::string::npos; });
  }
  static Case const& find(char const* name) {
    for (Case const& c : cases())
      if (c.e.name == name) return c;
    throw std::runtime_error(name);
  }
};

TEST_F(IsaCheckerSelfTest, HalfRateMfmaOnGfx950Fails) {
  auto const bad = failures_after(find("Gfx950E4m3PerTensorNk"), "v_mfma_f32_16x16x128_f8f6f4",
                                  "v_mfma_f32_16x16x32_fp8_fp8");
  EXPECT_TRUE(mentions(bad, "v_mfma_f32_16x16x32_fp8_fp8 in the kernel"));
}

TEST_F(IsaCheckerSelfTest, WrongOperandFormatFails) {
  auto const bad = failures_after(find("Gfx942E4m3PerTensorNk"), "v_mfma_f32_16x16x32_fp8_fp8",
                                  "v_mfma_f32_16x16x32_fp8_bf8");
  EXPECT_TRUE(mentions(bad, "intended"));
}

TEST_F(IsaCheckerSelfTest, ScratchAndSpillsFail) {
  Case const& c = find("Gfx942E4m3PerTensorNk");
  auto bad = failures_after(c, ".vgpr_spill_count: 0", ".vgpr_spill_count: 4");
  EXPECT_TRUE(mentions(bad, "VGPR spills"));
  bad = failures_after(c, "\ts_barrier\n", "\tscratch_store_dword off, v0, off\n\ts_barrier\n");
  EXPECT_TRUE(mentions(bad, "scratch instructions"));
}

TEST_F(IsaCheckerSelfTest, NarrowFragmentReadsFail) {
  auto const bad = failures_after(find("Gfx950E4m3PerTensorNk"), "ds_read_b128", "ds_read2_b64");
  EXPECT_TRUE(mentions(bad, "split to 8-byte accesses"));
}

TEST_F(IsaCheckerSelfTest, MissingMfmasFail) {
  // An MFMA turned into a VALU op: the K loop then does less work than the policy needs.
  auto const bad = failures_after(find("Gfx942E4m3PerTensorNk"),
                                  "v_mfma_f32_16x16x32_fp8_fp8 v[2:5]", "v_add_f32 v[2:5]");
  EXPECT_TRUE(mentions(bad, "MFMAs per iteration"));
}

TEST_F(IsaCheckerSelfTest, SerializedGlobalLoadFails) {
  // A wait right after each global access: the loaded tile is consumed before the MFMAs run.
  auto const bad =
      failures_after(find("Gfx950E4m3PerTensorKn"), ", off\n", ", off\n\ts_waitcnt vmcnt(0)\n");
  EXPECT_TRUE(mentions(bad, "latency is not hidden"));
  // The same after each direct-to-LDS load (the schedule's counted waits leave them in flight).
  auto const bad_lds = failures_after(find("Gfx950E4m3PerTensorNk"), " offen lds\n",
                                      " offen lds\n\ts_waitcnt vmcnt(0)\n");
  EXPECT_TRUE(mentions(bad_lds, "latency is not hidden"));
}

TEST_F(IsaCheckerSelfTest, LdsReadUsedBeforeItsWaitFails) {
  // The buffer-load mainloop's LDS reads are inline asm: only its own lgkmcnt waits order them.
  auto const bad = failures_after(find("Gfx950E4m3PerTensorNk"), "lgkmcnt(0)", "lgkmcnt(15)");
  EXPECT_TRUE(mentions(bad, "before the lgkmcnt wait that lands it"));
}

TEST_F(IsaCheckerSelfTest, StagedWriteWaitOtherThanTheScheduleFails) {
  // gfx942's staged tile loads: each ds_write_b128 behind vmcnt(kLoadsPerTile - 1) = vmcnt(5).
  auto const bad = failures_after(find("Gfx942E4m3PerTensorNk"), "vmcnt(5)", "vmcnt(4)");
  EXPECT_TRUE(mentions(bad, "not vmcnt(5)"));
}

TEST_F(IsaCheckerSelfTest, TooManyRegistersFail) {
  // gfx950's 8-wave workgroup puts 2 waves on each SIMD: at most 256 VGPRs per wave.
  Case const& c = find("Gfx950E4m3PerTensorNk");
  AsmKernel const* k = find_kernel(kernels_in(c.asm_path), c.e.name);
  ASSERT_NE(k, nullptr);
  AsmKernel mutated = *k;
  mutated.meta[".vgpr_count"] = "300";
  EXPECT_TRUE(mentions(check(c.e, analyze(mutated)), "waves/SIMD"));
}

}  // namespace
}  // namespace fp8gemm::isa
