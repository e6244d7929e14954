// SPDX-License-Identifier: MIT
// The steady-state K loop of a compiled amdgcn kernel (tests/isa): the instructions one wave
// executes in one trip through a K loop when every lane is in bounds and the trip is neither the
// last one nor a tail, their counts (MFMAs, waits, issue overhead, staged loads), and the share of
// cycles llvm-mca keeps the matrix pipe busy on them. Static analysis only: nothing here runs a
// kernel or predicts a throughput.
//
// The steady-state path (what `steady_state_path` walks):
//  - starts at the K loop's header with every lane active and ends when control comes back to the
//    header; it never leaves the loop and never enters a nested (depth-2) loop;
//  - per-lane branches (s_cbranch_execz/execnz, and vccz/vccnz when vcc is a lane mask) follow the
//    lane masks under one assumption: every per-lane condition holds on every lane (every v_cmp
//    result is all active lanes; masks computed before the loop or reloaded from a spill lane are
//    all lanes). So `s_and_saveexec` entering an `if` keeps all lanes, the `s_xor` /
//    `s_andn2_saveexec` forming its else mask leaves none, and the join restores all: the bounds
//    checks pass and the byte-wise tail copies are skipped;
//  - uniform branches (s_cbranch_scc0/scc1, and vccz/vccnz when vcc is not a known lane mask)
//    depend on scalar data (trip counter, K). Both sides are walked: a side that leaves the loop is
//    not a steady-state trip; of the sides that come back to the header, the one executing more
//    instructions is taken (fall-through on a tie). In fp8gemm's K loop these branches are the
//    prefetch test (`has_ahead`), the promotion's "chunk inside K" test and the latch, so the
//    longest trip is the one that prefetches the next tile and promotes: neither the last trip
//    nor a tail. Taking the longer side never flatters the counts.
// A branch the walk cannot decide (exec not a known lane mask, a branch kind it does not model) is
// an error, never a side skipped. Every decision is recorded so a reader can audit the path.
#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "asm_model.hpp"

namespace fp8gemm::isa {

// ---- lane masks ------------------------------------------------------------------------------

/// A 64-lane mask under the steady-state assumption: all lanes, no lane, or not known.
enum class Lanes { kNone, kAll, kUnknown };

inline Lanes lanes_not(Lanes a) {
  return a == Lanes::kUnknown ? a : (a == Lanes::kAll ? Lanes::kNone : Lanes::kAll);
}
inline Lanes lanes_and(Lanes a, Lanes b) {
  if (a == Lanes::kNone || b == Lanes::kNone) return Lanes::kNone;
  return a == Lanes::kAll && b == Lanes::kAll ? Lanes::kAll : Lanes::kUnknown;
}
inline Lanes lanes_or(Lanes a, Lanes b) {
  return lanes_not(lanes_and(lanes_not(a), lanes_not(b)));
}
inline Lanes lanes_xor(Lanes a, Lanes b) {
  if (a == Lanes::kUnknown || b == Lanes::kUnknown) return Lanes::kUnknown;
  return a == b ? Lanes::kNone : Lanes::kAll;
}
inline char const* to_string(Lanes l) {
  return l == Lanes::kAll ? "all lanes" : (l == Lanes::kNone ? "no lane" : "unknown");
}

/// The scalar registers a trip writes, as lane masks, keyed by 32-bit register ("s22", "vcc_lo").
/// A register the trip has not written holds a mask computed before the loop: all lanes.
class LaneState {
 public:
  /// The 32-bit registers an operand names ("s[22:23]" -> s22 s23, "vcc" -> vcc_lo vcc_hi); empty
  /// for anything that is not a scalar register.
  static std::vector<std::string> regs(std::string const& operand) {
    static std::regex const range(R"(^(s|ttmp)\[(\d+):(\d+)\]$)");
    static std::regex const single(R"(^(s|ttmp)(\d+)$)");
    std::smatch m;
    if (operand == "vcc" || operand == "exec") return {operand + "_lo", operand + "_hi"};
    if (operand == "vcc_lo" || operand == "vcc_hi" || operand == "exec_lo" || operand == "exec_hi")
      return {operand};
    std::vector<std::string> r;
    if (std::regex_match(operand, m, range)) {
      for (int i = std::stoi(m[2]); i <= std::stoi(m[3]); ++i)
        r.push_back(m[1].str() + std::to_string(i));
    } else if (std::regex_match(operand, m, single)) {
      r.push_back(operand);
    }
    return r;
  }

  Lanes read(std::string const& operand) const {
    if (operand == "-1") return Lanes::kAll;
    if (operand == "0") return Lanes::kNone;
    std::vector<std::string> const rs = regs(operand);
    if (rs.empty()) return Lanes::kUnknown;  // another constant: a partial mask
    Lanes v = get(rs.front());
    for (auto const& r : rs)
      if (get(r) != v) return Lanes::kUnknown;
    return v;
  }
  void write(std::string const& operand, Lanes v) {
    for (auto const& r : regs(operand)) value_[r] = v;
  }
  Lanes exec() const { return read("exec"); }

 private:
  Lanes get(std::string const& r) const {
    auto const it = value_.find(r);
    return it == value_.end() ? Lanes::kAll : it->second;
  }
  std::map<std::string, Lanes> value_;
};

inline std::vector<std::string> split_operands(std::string const& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur)), cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

/// Applies one instruction's effect on the lane masks.
inline void apply_lanes(Instr const& i, LaneState& s) {
  std::vector<std::string> const o = split_operands(i.operands);
  std::string const& op = i.op;
  auto starts = [&op](char const* p) { return op.rfind(p, 0) == 0; };
  if (starts("v_cmp")) {  // per-lane condition: true on every active lane (inactive lanes read 0)
    if (!o.empty()) s.write(o[0], s.exec());
    if (starts("v_cmpx")) s.write("exec", s.exec());
    return;
  }
  if (starts("v_readlane_b32")) {  // a mask half reloaded from a VGPR lane (an SGPR spill)
    if (!o.empty()) s.write(o[0], Lanes::kAll);
    return;
  }
  static std::regex const saveexec(
      R"(^s_(and|or|xor|andn2|orn2|nand|nor|xnor|andn1|orn1)_saveexec_b64$)");
  static std::regex const wrexec(R"(^s_(andn1|andn2)_wrexec_b64$)");
  static std::regex const logic(R"(^s_(and|or|xor|andn2|orn2|nand|nor|xnor)_b64$)");
  std::smatch m;
  auto combine = [](std::string const& f, Lanes a, Lanes b) {
    if (f == "and") return lanes_and(a, b);
    if (f == "or") return lanes_or(a, b);
    if (f == "xor") return lanes_xor(a, b);
    if (f == "andn2") return lanes_and(a, lanes_not(b));
    if (f == "orn2") return lanes_or(a, lanes_not(b));
    if (f == "andn1") return lanes_and(lanes_not(a), b);
    if (f == "orn1") return lanes_or(lanes_not(a), b);
    if (f == "nand") return lanes_not(lanes_and(a, b));
    if (f == "nor") return lanes_not(lanes_or(a, b));
    return lanes_not(lanes_xor(a, b));  // xnor
  };
  if (std::regex_match(op, m, saveexec) && o.size() == 2) {  // D = exec; exec = S op exec
    Lanes const old = s.exec();
    s.write("exec", combine(m[1], s.read(o[1]), old));
    s.write(o[0], old);
    return;
  }
  if (std::regex_match(op, m, wrexec) && o.size() == 2) {  // exec = S op exec; D = exec
    s.write("exec", combine(m[1], s.read(o[1]), s.exec()));
    s.write(o[0], s.exec());
    return;
  }
  if (std::regex_match(op, m, logic) && o.size() == 3) {
    s.write(o[0], combine(m[1], s.read(o[1]), s.read(o[2])));
    return;
  }
  if ((op == "s_mov_b64" || op == "s_not_b64") && o.size() == 2) {
    Lanes const v = s.read(o[1]);
    s.write(o[0], op == "s_mov_b64" ? v : lanes_not(v));
    return;
  }
  if (op == "s_cselect_b64" && o.size() == 3) {  // chosen by scc: uniform data
    Lanes const a = s.read(o[1]), b = s.read(o[2]);
    s.write(o[0], a == b ? a : Lanes::kUnknown);
    return;
  }
  // Anything else writing a scalar register leaves a value that is not a known mask: SALU ops
  // write their first operand; v_readfirstlane its first, VALU carry-outs their second.
  static std::set<std::string> const no_scalar_dst = {"s_nop",
                                                      "s_waitcnt",
                                                      "s_barrier",
                                                      "s_setprio",
                                                      "s_sleep",
                                                      "s_branch",
                                                      "s_endpgm",
                                                      "s_sendmsg",
                                                      "s_trap",
                                                      "s_setreg_b32",
                                                      "s_setreg_imm32_b32",
                                                      "s_set_gpr_idx_on",
                                                      "s_set_gpr_idx_off"};
  bool const salu_dst = starts("s_") && !starts("s_cmp") && !starts("s_bitcmp") &&
                        !starts("s_cbranch") && !starts("s_store") && !starts("s_buffer_store") &&
                        !starts("s_waitcnt") && !no_scalar_dst.count(op);
  if (salu_dst && !o.empty()) s.write(o[0], Lanes::kUnknown);
  if (starts("v_readfirstlane") && !o.empty()) s.write(o[0], Lanes::kUnknown);
  bool const carry_out = op.find("_co_") != std::string::npos || starts("v_div_scale") ||
                         starts("v_mad_u64_u32") || starts("v_mad_i64_i32");
  if (starts("v_") && carry_out && o.size() > 1) s.write(o[1], Lanes::kUnknown);
}

// ---- instruction classes ---------------------------------------------------------------------

inline bool starts_with(std::string const& s, char const* p) {
  return s.rfind(p, 0) == 0;
}
inline bool is_mfma_op(std::string const& op) {
  return starts_with(op, "v_mfma") || starts_with(op, "v_smfmac");
}
inline bool is_waitcnt_op(std::string const& op) {
  return starts_with(op, "s_waitcnt");
}
inline bool is_branch_op(std::string const& op) {
  return starts_with(op, "s_cbranch") || op == "s_branch";
}

/// A global / buffer / flat load; `to_lds` says it writes LDS directly (no VGPR staging).
struct VmemLoad {
  bool is_load = false, to_lds = false;
  int bytes = 0;  // per lane
};
inline VmemLoad vmem_load(Instr const& i) {
  static std::regex const re(
      R"(^(global|buffer|flat)_load_(lds_)?(dwordx[234]|dword|b128|b96|b64|b32|)"
      R"(ushort|sshort|u16|i16|short_d16\w*|ubyte\w*|sbyte\w*|u8|i8)$)");
  static std::regex const lds_modifier(R"((^|[\s,])lds($|\s))");
  static std::map<std::string, int> const wide = {{"dwordx4", 16}, {"b128", 16},   {"dwordx3", 12},
                                                  {"b96", 12},     {"dwordx2", 8}, {"b64", 8},
                                                  {"dword", 4},    {"b32", 4}};
  std::smatch m;
  if (!std::regex_match(i.op, m, re)) return {};
  VmemLoad v;
  v.is_load = true;
  v.to_lds = m[2].matched || std::regex_search(i.operands, lds_modifier);
  std::string const w = m[3];
  bool const half = w.find("short") != std::string::npos || w == "u16" || w == "i16";
  v.bytes = wide.count(w) ? wide.at(w) : (half ? 2 : 1);
  return v;
}

/// A wait for some counter to reach zero: vmcnt(0), lgkmcnt(0), expcnt(0), or a bare 0.
inline bool waits_for_zero(Instr const& i) {
  static std::regex const zero(R"((vmcnt|lgkmcnt|expcnt|vscnt)\(0\))");
  return is_waitcnt_op(i.op) && (std::regex_search(i.operands, zero) || trim(i.operands) == "0" ||
                                 i.operands.find("null, 0x0") != std::string::npos);
}

inline bool is_scratch_instr(Instr const& i) {
  // architected flat scratch (gfx942, gfx950): spills are scratch_* only; buffer ... offen with
  // s[0:3] is also how the tile loads read through their own buffer resources (isa_check_test.cpp)
  return starts_with(i.op, "scratch_");
}

// ---- the walk --------------------------------------------------------------------------------

struct SteadyStatePath {
  std::string header;                  // "BB0_309"
  std::vector<Instr const*> instrs;    // in execution order, one trip
  std::vector<std::string> blocks;     // labels in execution order
  std::vector<std::string> decisions;  // every branch: where, what, which way, why
  std::vector<std::string> uniform;    // the uniform-branch decisions only (a subset of decisions)
  std::string error;                   // non-empty: no steady-state trip found (why)
  bool undecidable = false;            // the error is a branch the walk cannot decide, not a side
                                       // that fails to be a trip: it is never skipped by a fork
};

namespace detail {

struct Walker {
  AsmKernel const& k;
  std::string header;                // "BB0_309"
  std::map<std::string, int> index;  // label -> block index
  int header_block = -1;
  long budget = 1 << 14;  // uniform forks explored; exceeding it is an error

  bool in_loop(int b) const {
    return b >= 0 && b < static_cast<int>(k.blocks.size()) && k.blocks[b].outer_loop == header;
  }

  /// Walks from instruction `ii` of block `bi` to the end of the trip.
  SteadyStatePath walk(int bi, std::size_t ii, LaneState lanes, std::set<int> visited) {
    SteadyStatePath p;
    p.header = header;
    while (true) {
      Block const& b = k.blocks[bi];
      if (ii == 0) {
        if (b.depth > 1) return fail(p, "enters the nested loop at " + b.label + " (a tail path)");
        if (!visited.insert(bi).second)
          return fail(p, "comes back to " + b.label + " inside the trip");
        p.blocks.push_back(b.label);
      }
      int next = bi + 1;  // fall-through
      bool moved = false;
      for (std::size_t n = ii; n < b.instrs.size() && !moved; ++n) {
        Instr const& i = b.instrs[n];
        p.instrs.push_back(&i);
        if (!is_branch_op(i.op)) {
          if (i.op == "s_endpgm" || starts_with(i.op, "s_setpc") || starts_with(i.op, "s_swappc"))
            return fail(p, i.op + " in " + b.label + " inside the trip");
          apply_lanes(i, lanes);
          continue;
        }
        auto const t =
            index.find(split_operands(i.operands).empty() ? "" : split_operands(i.operands)[0]);
        if (t == index.end()) return undecidable(p, i.text + ": unknown branch target");
        int const target = t->second;
        std::string const where = b.label + ": " + i.text + " -> ";
        if (i.op == "s_branch") {
          p.decisions.push_back(where + "taken (unconditional)");
          next = target, moved = true;
          break;
        }
        std::string const cond = i.op.substr(std::string("s_cbranch_").size());
        Lanes mask = Lanes::kUnknown;
        bool on_zero = false, lane_branch = false;
        if (cond == "execz" || cond == "execnz") {
          mask = lanes.exec(), on_zero = cond == "execz", lane_branch = true;
          if (mask == Lanes::kUnknown)
            return undecidable(p, where + "exec is not a known lane mask");
        } else if (cond == "vccz" || cond == "vccnz") {
          mask = lanes.read("vcc"), on_zero = cond == "vccz", lane_branch = mask != Lanes::kUnknown;
        } else if (cond != "scc0" && cond != "scc1") {
          return undecidable(p, where + "branch kind not modelled");
        }
        if (lane_branch) {
          bool const taken = (mask == Lanes::kNone) == on_zero;
          p.decisions.push_back(where + (taken ? "taken" : "fall-through") + " (" +
                                cond.substr(0, 3) + " = " + to_string(mask) + ")");
          if (taken) next = target, moved = true;
          continue;
        }
        // Uniform: walk both sides, keep those that come back to the header, take the longer.
        if (--budget < 0) return undecidable(p, "too many uniform branches to explore");
        SteadyStatePath tk = target == header_block ? done() : enter(target, lanes, visited);
        SteadyStatePath ft = walk(bi, n + 1, lanes, visited);  // the rest of this block, then on
        for (SteadyStatePath const* side : {&tk, &ft})
          if (side->undecidable) {
            append(p, *side);
            return undecidable(p, side->error);
          }
        bool const tk_ok = tk.error.empty(), ft_ok = ft.error.empty();
        if (!tk_ok && !ft_ok)
          return fail(p, where + "neither side is a steady-state trip (taken: " + tk.error +
                             "; fall-through: " + ft.error + ")");
        bool const take = tk_ok && (!ft_ok || tk.instrs.size() > ft.instrs.size());
        std::string why;
        if (!tk_ok || !ft_ok) {
          why = "uniform; the other side " + (take ? ft.error : tk.error);
        } else {
          why = "uniform; the longer rest of the trip: " +
                std::to_string(take ? tk.instrs.size() : ft.instrs.size()) + " vs " +
                std::to_string(take ? ft.instrs.size() : tk.instrs.size()) + " instructions";
        }
        std::string const d = where + (take ? "taken" : "fall-through") + " (" + why + ")";
        p.decisions.push_back(d);
        p.uniform.push_back(d);
        append(p, take ? tk : ft);
        return p;
      }
      if (next == header_block) {
        p.decisions.push_back("back at the header " + k.blocks[next].label + ": end of the trip");
        return p;
      }
      if (!in_loop(next))
        return fail(p, "leaves the loop at " + (next < static_cast<int>(k.blocks.size())
                                                    ? k.blocks[next].label
                                                    : "the function end"));
      bi = next, ii = 0;
    }
  }

  SteadyStatePath enter(int bi, LaneState const& lanes, std::set<int> const& visited) {
    SteadyStatePath p;
    p.header = header;
    if (!in_loop(bi)) return fail(p, "leaves the loop at " + k.blocks[bi].label);
    return walk(bi, 0, lanes, visited);
  }
  SteadyStatePath done() const {
    SteadyStatePath p;
    p.header = header;
    p.decisions.push_back("back at the header " + k.blocks[header_block].label +
                          ": end of the trip");
    return p;
  }
  static void append(SteadyStatePath& p, SteadyStatePath const& rest) {
    p.instrs.insert(p.instrs.end(), rest.instrs.begin(), rest.instrs.end());
    p.blocks.insert(p.blocks.end(), rest.blocks.begin(), rest.blocks.end());
    p.decisions.insert(p.decisions.end(), rest.decisions.begin(), rest.decisions.end());
    p.uniform.insert(p.uniform.end(), rest.uniform.begin(), rest.uniform.end());
  }
  static SteadyStatePath fail(SteadyStatePath p, std::string why) {
    p.error = std::move(why);
    return p;
  }
  static SteadyStatePath undecidable(SteadyStatePath p, std::string why) {
    p.error = std::move(why);
    p.undecidable = true;
    return p;
  }
};

}  // namespace detail

/// The depth-1 loops of a kernel that hold MFMAs (its K loops), headers in layout order.
inline std::vector<std::string> k_loop_headers(AsmKernel const& k) {
  std::vector<std::string> out;
  for (Block const& b : k.blocks) {
    if (b.depth != 1 || b.loop != header_id(b.label)) continue;
    bool mfma = false;
    for (Block const& x : k.blocks)
      if (x.outer_loop == b.loop)
        for (Instr const& i : x.instrs) mfma = mfma || is_mfma_op(i.op);
    if (mfma) out.push_back(b.loop);
  }
  return out;
}

/// One steady-state trip through the loop whose header is `header` ("BB0_309"); see the file
/// comment.
inline SteadyStatePath steady_state_path(AsmKernel const& k, std::string const& header) {
  detail::Walker w{k, header, {}, -1};
  for (int b = 0; b < static_cast<int>(k.blocks.size()); ++b) {
    w.index[k.blocks[b].label] = b;
    if (header_id(k.blocks[b].label) == header) w.header_block = b;
  }
  if (w.header_block < 0) {
    SteadyStatePath p;
    p.header = header;
    p.error = "no block labelled " + header;
    return p;
  }
  SteadyStatePath p = w.walk(w.header_block, 0, LaneState{}, {});
  p.header = header;
  return p;
}

// ---- counts ----------------------------------------------------------------------------------

/// Counts over one steady-state trip, per wave.
struct TripCounts {
  int instrs = 0, mfma = 0;
  int waitcnt = 0, waitcnt_zero = 0;
  int zero_wait_before_mfma =
      0;  // a wait to zero whose next instruction, past other waits, is an MFMA
  int zero_wait_before_mfma_loose = 0;  // the same, looking past s_setprio and s_nop as well
  int longest_mfma_run = 0;             // MFMAs back to back, around the loop's back edge too
  int staged_loads = 0,
      staged_load_bytes = 0;              // global/buffer/flat loads into VGPRs (bytes per lane)
  int staged_x16 = 0, staged_narrow = 0;  // of those: 16-byte ones, 1- and 2-byte ones
  int lds_direct_loads = 0;               // buffer/global loads written straight to LDS
  int ds_reads = 0, ds_writes = 0, barriers = 0, branches = 0, scratch_instrs = 0;
  std::map<std::string, int> mfma_forms;
  double nonmfma_per_mfma() const { return mfma > 0 ? double(instrs - mfma) / mfma : 0.0; }
};

inline TripCounts count_trip(std::vector<Instr const*> const& path) {
  TripCounts c;
  int const n = static_cast<int>(path.size());
  c.instrs = n;
  for (Instr const* i : path) {
    if (is_mfma_op(i->op)) ++c.mfma, ++c.mfma_forms[i->op];
    if (is_waitcnt_op(i->op)) ++c.waitcnt, c.waitcnt_zero += waits_for_zero(*i);
    if (VmemLoad const v = vmem_load(*i); v.is_load) {
      if (v.to_lds) {
        ++c.lds_direct_loads;
      } else {
        ++c.staged_loads, c.staged_load_bytes += v.bytes;
        c.staged_x16 += v.bytes == 16, c.staged_narrow += v.bytes <= 2;
      }
    }
    c.ds_reads += starts_with(i->op, "ds_read") || starts_with(i->op, "ds_load");
    c.ds_writes += starts_with(i->op, "ds_write") || starts_with(i->op, "ds_store");
    c.barriers += starts_with(i->op, "s_barrier");
    c.branches += is_branch_op(i->op);
    c.scratch_instrs += is_scratch_instr(*i);
  }
  if (n == 0) return c;
  // The trip repeats: the instruction after the last one is the first one.
  for (int j = 0; j < n; ++j) {
    if (!waits_for_zero(*path[j])) continue;
    auto next_past = [&](bool loose) {
      for (int s = 1; s < n; ++s) {
        Instr const& x = *path[(j + s) % n];
        if (is_waitcnt_op(x.op) || (loose && (x.op == "s_setprio" || x.op == "s_nop"))) continue;
        return is_mfma_op(x.op);
      }
      return false;
    };
    c.zero_wait_before_mfma += next_past(false);
    c.zero_wait_before_mfma_loose += next_past(true);
  }
  int start = 0;  // begin the run scan at an instruction that is not an MFMA
  while (start < n && is_mfma_op(path[start]->op)) ++start;
  if (start == n) {
    c.longest_mfma_run = n;
  } else {
    int run = 0;
    for (int s = 1; s <= n; ++s) {
      run = is_mfma_op(path[(start + s) % n]->op) ? run + 1 : 0;
      c.longest_mfma_run = std::max(c.longest_mfma_run, run);
    }
  }
  return c;
}

// ---- llvm-mca --------------------------------------------------------------------------------

/// Matrix-pipe passes (4 clocks each) of one MFMA with the operands the library uses (FP8/BF8),
/// from AMD's CDNA3/CDNA4 instruction tables: gfx942 16x16x32 fp8 4 (16 clocks), 32x32x16 fp8 8;
/// gfx950 f8f6f4 with FP8/BF8 operands 16x16x128 8 (32 clocks), 32x32x64 16 (64 clocks).
/// 0: not an MFMA this table prices.
inline int mfma_fp8_passes(Instr const& i) {
  static std::regex const f8f6f4(R"(^v_mfma_(scale_)?f32_(16x16x128|32x32x64)_f8f6f4$)");
  static std::regex const cdna3(R"(^v_mfma_f32_(16x16x32|32x32x16)_(fp8|bf8)_(fp8|bf8)$)");
  std::smatch m;
  if (std::regex_match(i.op, m, f8f6f4)) return m[2] == "16x16x128" ? 8 : 16;
  if (std::regex_match(i.op, m, cdna3)) return m[1] == "16x16x32" ? 4 : 8;
  return 0;
}

/// An f8f6f4 MFMA whose A and B are both FP8/BF8 (cbsz and blgp 0 or 1): llvm-mca 22's gfx950
/// model prices every f8f6f4 form at the FP4/FP6 rate (16x16x128: 4 passes), half the FP8 rate.
inline bool is_fp8_operand_f8f6f4(Instr const& i) {
  if (!starts_with(i.op, "v_mfma") || i.op.find("f8f6f4") == std::string::npos) return false;
  static std::regex const cbsz(R"(\bcbsz:(\d+))"), blgp(R"(\bblgp:(\d+))");
  std::smatch m;
  int a = 0, b = 0;
  if (std::regex_search(i.operands, m, cbsz)) a = std::stoi(m[1]);
  if (std::regex_search(i.operands, m, blgp)) b = std::stoi(m[1]);
  return a <= 1 && b <= 1;
}

/// One vector register: 'v' or 'a' and its index.
struct VReg {
  char file = 'v';
  int index = 0;
  bool operator==(VReg const& o) const { return file == o.file && index == o.index; }
  std::string name() const { return std::string(1, file) + std::to_string(index); }
};

/// The vector registers an operand names: "v[4:11]" is v4..v11, "a7" is a7; a constant, an SGPR
/// or a modifier names none.
inline std::vector<VReg> vector_regs(std::string const& operand) {
  static std::regex const range(R"(^([va])\[(\d+):(\d+)\]$)"), one(R"(^([va])(\d+)$)");
  std::smatch m;
  std::string const t = trim(operand);
  std::vector<VReg> out;
  if (std::regex_match(t, m, range)) {
    for (int r = std::stoi(m[2]); r <= std::stoi(m[3]); ++r) out.push_back({m.str(1)[0], r});
  } else if (std::regex_match(t, m, one)) {
    out.push_back({m.str(1)[0], std::stoi(m[2])});
  }
  return out;
}

/// The vector registers an instruction writes, where the stand-in below needs them: the first
/// operand of a vector ALU or MFMA op (none when it is an SGPR or VCC: compares, readlane,
/// readfirstlane), both of v_swap*; of an LDS op that returns data (reads, permutes, swizzles,
/// `_rtn` atomics; not writes); of a load into registers (global, buffer, flat, scratch: spill
/// reloads; a direct-to-LDS load writes none) and of an atomic that returns (glc / sc0).
inline std::vector<VReg> vector_regs_written(Instr const& i) {
  VmemLoad const v = vmem_load(i);
  std::string const& op = i.op;
  bool const lds_returns = starts_with(op, "ds_") && !starts_with(op, "ds_write") &&
                           !starts_with(op, "ds_store") &&
                           (starts_with(op, "ds_read") || starts_with(op, "ds_load") ||
                            op.find("permute") != std::string::npos ||
                            starts_with(op, "ds_swizzle") || op.find("_rtn") != std::string::npos);
  static std::regex const returning(R"((^|[\s,])(glc|sc0)($|[\s,]))");
  bool const atomic_returns =
      op.find("_atomic_") != std::string::npos && std::regex_search(i.operands, returning);
  bool const load = (v.is_load && !v.to_lds) || (starts_with(op, "scratch_load") &&
                                                 i.operands.find(" lds") == std::string::npos);
  bool const writes =
      (starts_with(op, "v_") && !starts_with(op, "v_cmp")) || lds_returns || load || atomic_returns;
  if (!writes) return {};
  std::vector<std::string> const o = split_operands(i.operands);
  if (o.empty()) return {};
  std::vector<VReg> w = vector_regs(o[0]);
  if (starts_with(op, "v_swap") && o.size() > 1)
    for (VReg const& r : vector_regs(o[1])) w.push_back(r);
  return w;
}

/// The llvm-mca stand-in for an FP8-operand f8f6f4 MFMA (see mca_input): an MFMA of the same
/// D / C shape that llvm-mca's gfx950 model prices at the FP8 rate in one instruction,
/// v_mfma_f32_16x16x4_f32 (8 passes; for 16x16x128) or v_mfma_f32_32x32x2_f32 (16 passes; for
/// 32x32x64), with the original D and C. Its A and B are one register each: of every register the
/// original reads (A, B and, scaled, the two scale operands), the two the model makes ready last,
/// by (latency of the writer) - (instructions since it, wrapping around the trip), so the
/// stand-in waits for whatever the original would wait for longest. `latency[j]`: llvm-mca's
/// latency of path[j] (run_mca_latencies); empty: every writer counts as 1.
inline std::string mfma_stand_in(std::vector<Instr const*> const& path, std::size_t at,
                                 std::vector<int> const& latency) {
  Instr const& i = *path[at];
  std::vector<std::string> const o = split_operands(i.operands);
  bool const scaled = starts_with(i.op, "v_mfma_scale");
  // an operand without the modifiers after it (cbsz, blgp, op_sel, ...)
  auto bare = [](std::string const& x) { return x.substr(0, x.find(' ')); };
  std::vector<std::string> sources = {o.at(1), o.at(2)};
  if (scaled) sources.push_back(bare(o.at(4))), sources.push_back(bare(o.at(5)));
  std::size_t const n = path.size();
  struct Candidate {
    long slack;
    std::size_t back, writer;
    VReg reg;
  };
  std::vector<Candidate> ready;
  for (auto const& src : sources) {
    for (VReg const& r : vector_regs(src)) {
      for (std::size_t back = 1; back <= n; ++back) {
        std::size_t const j = (at + n - back) % n;
        auto const w = vector_regs_written(*path[j]);
        if (std::find(w.begin(), w.end(), r) == w.end()) continue;
        long const lat = j < latency.size() ? latency[j] : 1;
        ready.push_back({lat - static_cast<long>(back), back, j, r});
        break;
      }
    }
  }
  std::stable_sort(ready.begin(), ready.end(), [](Candidate const& x, Candidate const& y) {
    return x.slack != y.slack ? x.slack > y.slack : x.back < y.back;
  });
  // the second from another writer (the same writer's other registers add nothing); registers
  // written nowhere in the trip carry no dependency: any will do
  std::vector<VReg> pick;
  for (auto const& c : ready)
    if (pick.empty() || (pick.size() == 1 && c.writer != ready.front().writer))
      pick.push_back(c.reg);
  for (auto const& src : {o.at(1), o.at(2)}) {
    auto const r = vector_regs(src);
    if (pick.size() < 2 && !r.empty() && std::find(pick.begin(), pick.end(), r[0]) == pick.end())
      pick.push_back(r[0]);
  }
  if (pick.empty()) pick.push_back(VReg{'v', 0});     // no vector source at all (not seen)
  if (pick.size() < 2) pick.push_back(pick.front());  // A and B the same registers
  bool const big = i.op.find("32x32x64") != std::string::npos;
  std::string const c = bare(o.at(3));
  return std::string(big ? "v_mfma_f32_32x32x2_f32 " : "v_mfma_f32_16x16x4_f32 ") + o.at(0) + ", " +
         pick.at(0).name() + ", " + pick.at(1).name() + ", " + c;
}

/// How an FP8-operand f8f6f4 MFMA goes into the llvm-mca input (llvm-mca 22 holds the matrix pipe
/// for the FP4 rate, half the FP8 rate):
///   kStandIn: replaced by mfma_stand_in: one instruction that holds the pipe for the FP8 rate and
///             lets the instructions after it issue while it runs, as the SIMD does (the table);
///   kTwice:   written twice (the previous pricing, kept as a column): the second copy waits for
///             the pipe at issue, and llvm-mca issues in order, so at most 3 instructions overlap
///             an MFMA's 8 passes instead of 7;
///   kModel:   left as it is (the FP4 rate; self-tests).
enum class F8f6f4Price { kStandIn, kTwice, kModel };

/// The llvm-mca input for one trip: the path's instructions in order, branches included (they
/// take issue slots; llvm-mca does not follow them), each FP8-operand f8f6f4 MFMA priced as
/// `price` says. `latency`: for kStandIn (mfma_stand_in).
inline std::string mca_input(std::vector<Instr const*> const& path, F8f6f4Price price,
                             std::vector<int> const& latency = {}) {
  std::string s;
  for (std::size_t at = 0; at < path.size(); ++at) {
    Instr const& i = *path[at];
    bool const fp8 = is_fp8_operand_f8f6f4(i);
    if (fp8 && price == F8f6f4Price::kStandIn) {
      s += mfma_stand_in(path, at, latency) + "\n";
      continue;
    }
    s += i.text + "\n";
    if (fp8 && price == F8f6f4Price::kTwice) s += i.text + "\n";
  }
  return s;
}

struct McaResult {
  std::string error;  // non-empty: no numbers (why)
  int iterations = 0;
  long total_cycles = 0;
  double cycles_per_trip = 0;  // Total Cycles / iterations
  double matrix_per_trip = 0;  // HWXDL resource cycles per iteration (the matrix pipe)
  double share() const { return cycles_per_trip > 0 ? matrix_per_trip / cycles_per_trip : 0.0; }
};

/// Reads llvm-mca's default report: "Iterations", "Total Cycles", the resource names and the
/// "Resource pressure per iteration" row.
inline McaResult parse_mca(std::string const& out) {
  McaResult r;
  auto fail = [&r](std::string why) {
    r.error = std::move(why);
    return r;
  };
  std::smatch m;
  static std::regex const it(R"(Iterations:\s+(\d+))"), cyc(R"(Total Cycles:\s+(\d+))");
  if (!std::regex_search(out, m, it)) return fail("no 'Iterations:' in llvm-mca output");
  r.iterations = std::stoi(m[1]);
  if (!std::regex_search(out, m, cyc)) return fail("no 'Total Cycles:' in llvm-mca output");
  r.total_cycles = std::stol(m[1]);
  r.cycles_per_trip = double(r.total_cycles) / std::max(1, r.iterations);
  int xdl = -1;
  static std::regex const res(R"(\[(\d+)\]\s+-\s+(\w+))");
  for (auto b = std::sregex_iterator(out.begin(), out.end(), res); b != std::sregex_iterator(); ++b)
    if ((*b)[2] == "HWXDL") xdl = std::stoi((*b)[1]);
  if (xdl < 0) return fail("no HWXDL resource in llvm-mca output");
  auto const p = out.find("Resource pressure per iteration:");
  if (p == std::string::npos) return fail("no resource pressure in llvm-mca output");
  std::istringstream lines(out.substr(p));
  std::string title, names, values;
  std::getline(lines, title), std::getline(lines, names), std::getline(lines, values);
  std::istringstream v(values);
  std::string cell;
  for (int col = 0; v >> cell; ++col)
    if (col == xdl) r.matrix_per_trip = cell == "-" ? 0.0 : std::stod(cell);
  return r;
}

/// Runs `mca` (llvm-mca-22) on `input_path` for `arch` ("gfx950") with `options`: its output, or
/// an error (why) in `error`.
inline std::string mca_output(std::string const& mca, std::string const& input_path,
                              std::string const& arch, std::string const& options,
                              std::string& error) {
  if (mca.empty()) {
    error = "llvm-mca-22 not found (scripts/install_deps.sh installs llvm-22)";
    return "";
  }
  std::string const cmd = "'" + mca + "' -mtriple=amdgcn-amd-amdhsa -mcpu=" + arch + " " + options +
                          " '" + input_path + "' 2>&1";
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) {
    error = "cannot run " + mca;
    return "";
  }
  char buf[4096];
  while (std::size_t const got = std::fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, got);
  int const status = pclose(pipe.release());
  if (status != 0) error = mca + " failed: " + out.substr(0, 400);
  return out;
}

/// Runs `mca` (llvm-mca-22) on `input_path` for `arch` ("gfx950") and reads the result.
inline McaResult run_mca(std::string const& mca, std::string const& input_path,
                         std::string const& arch, int iterations = 100) {
  McaResult r;
  std::string const out =
      mca_output(mca, input_path, arch,
                 "-iterations=" + std::to_string(iterations) + " -instruction-info=false", r.error);
  return r.error.empty() ? parse_mca(out) : r;
}

/// llvm-mca's latency of each instruction of `input_path` (its "Instruction Info" table, column
/// [2]), in order; empty with `error` set when it cannot be read.
inline std::vector<int> run_mca_latencies(std::string const& mca, std::string const& input_path,
                                          std::string const& arch, std::string& error) {
  std::string const out = mca_output(
      mca, input_path, arch, "-iterations=1 -resource-pressure=false -timeline=false", error);
  std::vector<int> lat;
  if (!error.empty()) return lat;
  auto const p = out.find("Instructions:\n", out.find("Instruction Info:"));
  if (p == std::string::npos) {
    error = "no instruction info in llvm-mca output";
    return lat;
  }
  std::istringstream lines(out.substr(p + 14));
  static std::regex const row(R"(^\s*\d+\s+(\d+)\s+\d+\.\d+\s)");
  std::smatch m;
  for (std::string line; std::getline(lines, line) && std::regex_search(line, m, row);)
    lat.push_back(std::stoi(m[1]));
  return lat;
}

/// A trip priced both ways (F8f6f4Price): kStandIn, the table's share, and kTwice, the
/// previous pricing. Writes the llvm-mca inputs next to `base` (base.mca.s: the stand-in input;
/// base.twice.s; base.model.s: the trip as compiled). The stand-ins' sources are chosen twice:
/// with the latencies of the trip as compiled, then with those of the stand-in input (the same
/// instructions one for one, the MFMAs' latencies now the stand-ins'), which are final: a
/// stand-in's latency does not depend on the sources it reads.
struct TripPrice {
  McaResult stand_in, twice;
};
inline TripPrice price_trip(std::string const& mca, std::vector<Instr const*> const& path,
                            std::string const& arch, std::string const& base) {
  TripPrice t;
  for (char const* ext : {".mca.s", ".twice.s", ".model.s"}) std::remove((base + ext).c_str());
  std::ofstream(base + ".twice.s") << mca_input(path, F8f6f4Price::kTwice);
  t.twice = run_mca(mca, base + ".twice.s", arch);
  std::vector<int> latency;
  if (std::any_of(path.begin(), path.end(),
                  [](Instr const* i) { return is_fp8_operand_f8f6f4(*i); })) {
    std::ofstream(base + ".model.s") << mca_input(path, F8f6f4Price::kModel);
    for (std::string const& input : {base + ".model.s", base + ".mca.s"}) {
      if (input != base + ".model.s")
        std::ofstream(input) << mca_input(path, F8f6f4Price::kStandIn, latency);
      std::string error;
      latency = run_mca_latencies(mca, input, arch, error);
      if (error.empty() && latency.size() != path.size())
        error = "llvm-mca listed " + std::to_string(latency.size()) + " latencies for " +
                std::to_string(path.size()) + " instructions";
      if (!error.empty()) {
        t.stand_in.error = error;
        return t;
      }
    }
  }
  std::ofstream(base + ".mca.s") << mca_input(path, F8f6f4Price::kStandIn, latency);
  t.stand_in = run_mca(mca, base + ".mca.s", arch);
  return t;
}

}  // namespace fp8gemm::isa
