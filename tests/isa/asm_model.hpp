// SPDX-License-Identifier: MIT
// The assembly model the ISA checks read (tests/isa): clang's -S output for amdgcn, split into
// functions, basic blocks (in layout order, with LLVM's loop annotations) and instructions, plus
// each kernel's amdhsa.kernels metadata and "; Kernel info" comments.
//
// Loop facts come from LLVM's asm printer, which annotates every basic block inside a loop
// ("=>This Loop Header: Depth=1", "in Loop: Header=BB0_92 Depth=1", "Parent Loop BB0_92 Depth=1"
// for nested loops).
#pragma once

#include <cctype>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fp8gemm::isa {

struct Instr {
  std::string op;        // mnemonic
  std::string operands;  // everything after the mnemonic, trailing "; comment" removed
  std::string text;      // op + operands: the instruction as an assembler reads it
};

struct Block {
  std::string label;       // ".LBB0_92", "; %bb.93" or the function symbol (entry block)
  std::string loop;        // innermost loop header ("BB0_92"), empty outside loops
  int depth = 0;           // loop depth (0: not in a loop)
  std::string outer_loop;  // the depth-1 loop holding this block
  std::vector<Instr> instrs;
};

struct AsmKernel {
  std::string symbol;
  std::vector<Block> blocks;                // layout order: a block falls through to the next
  std::map<std::string, std::string> meta;  // amdhsa.kernels YAML entry: ".vgpr_count" -> "226"
  std::map<std::string, long> info;         // "; NumVgprs: 226" comments after the function
};

inline std::string trim(std::string const& s) {
  auto const b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  auto const e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

/// "BB0_92" for a block labelled ".LBB0_92" (the spelling the loop annotations use).
inline std::string header_id(std::string const& label) {
  return label.rfind(".L", 0) == 0 ? label.substr(2) : label;
}

/// Loop facts from a block's annotation comments (LLVM MachineLoopInfo, printed by -S).
inline void annotate(Block& b, std::string const& comments) {
  static std::regex const header(R"(Loop Header: Depth=(\d+))");
  static std::regex const in_loop(R"(in Loop: Header=(BB\d+_\d+) Depth=(\d+))");
  static std::regex const parent(R"(Parent Loop (BB\d+_\d+) Depth=1\b)");
  std::smatch m;
  if (std::regex_search(comments, m, header)) {
    b.loop = header_id(b.label), b.depth = std::stoi(m[1]);
  } else if (std::regex_search(comments, m, in_loop)) {
    b.loop = m[1], b.depth = std::stoi(m[2]);
  }
  if (b.depth == 1) b.outer_loop = b.loop;
  if (b.depth > 1 && std::regex_search(comments, m, parent)) b.outer_loop = m[1];
}

/// Every function of an amdgcn .s file (a `.type NAME,@function` directive, then `NAME:`).
inline std::vector<AsmKernel> parse_asm(std::string const& text) {
  static std::regex const label(R"(^(\.LBB\d+_\d+|; %bb\.\d+):(.*)$)");
  static std::regex const type_fn(R"(^\s*\.type\s+([^,\s]+)\s*,\s*@function)");
  static std::regex const info(R"(^; (\w+): (-?\d+))");
  static std::regex const meta_kv(R"(^  (?:- |  )(\.\w+):\s+(\S+)\s*$)");
  std::vector<AsmKernel> kernels;
  std::istringstream in(text);
  std::string line;
  std::string pending_fn;  // declared by .type, its label not yet seen
  std::size_t cur = 0;     // 1 + index of the function whose body is being read
  std::size_t last = 0;    // 1 + index of the function whose "; Kernel info" comments follow
  bool in_meta = false, in_annotation = false;
  std::string comments;
  std::map<std::string, std::string> entry;
  auto flush_entry = [&] {
    auto const it = entry.find(".name");
    if (it != entry.end())
      for (auto& k : kernels)
        if (k.symbol == it->second) k.meta = entry;
    entry.clear();
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (in_meta) {
      if (line.rfind("  - ", 0) == 0) flush_entry();
      if (std::regex_match(line, m, meta_kv)) entry[m[1]] = m[2];
      if (line.rfind(".end_amdgpu_metadata", 0) == 0) flush_entry(), in_meta = false;
      continue;
    }
    if (line.rfind("amdhsa.kernels:", 0) == 0) {
      in_meta = true;
      continue;
    }
    if (cur == 0) {
      if (std::regex_search(line, m, type_fn)) {
        pending_fn = m[1];
        continue;
      }
      if (!pending_fn.empty() && line.rfind(pending_fn + ":", 0) == 0) {
        kernels.push_back(AsmKernel{});
        kernels.back().symbol = pending_fn;
        kernels.back().blocks.push_back(Block{pending_fn, "", 0, "", {}});
        cur = kernels.size(), in_annotation = false, pending_fn.clear();
        continue;
      }
      if (last != 0 && std::regex_search(line, m, info))
        kernels[last - 1].info[m[1]] = std::stol(m[2]);
      continue;
    }
    AsmKernel& k = kernels[cur - 1];
    if (line.rfind(".Lfunc_end", 0) == 0) {
      last = cur, cur = 0;
      continue;
    }
    if (std::regex_match(line, m, label)) {
      k.blocks.push_back(Block{m[1], "", 0, "", {}});
      comments = m[2];
      in_annotation = true;
      annotate(k.blocks.back(), comments);
      continue;
    }
    std::string const t = trim(line);
    if (t.empty()) continue;
    if (t[0] == ';') {
      if (in_annotation) {
        comments += t;
        annotate(k.blocks.back(), comments);
      }
      continue;
    }
    in_annotation = false;
    if (t[0] == '.' || !std::isalpha(static_cast<unsigned char>(t[0]))) continue;  // directives
    std::string const code = trim(t.substr(0, t.find(';')));
    auto const sp = code.find_first_of(" \t");
    Instr i;
    i.op = code.substr(0, sp);
    i.operands = sp == std::string::npos ? "" : trim(code.substr(sp));
    i.text = i.operands.empty() ? i.op : i.op + " " + i.operands;
    k.blocks.back().instrs.push_back(std::move(i));
  }
  return kernels;
}

}  // namespace fp8gemm::isa
