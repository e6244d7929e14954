// SPDX-License-Identifier: MIT
// Reads `cuobjdump -sass` output and checks every TMA + WGMMA kernel in it (label ptxas, no GPU):
//  - it uses the FP8 tensor-core instruction (QGMMA) and never HMMA (the FP16 path);
//  - its K loop stays lean: the innermost loop that holds a QGMMA (the steady-state trip) issues
//    at most a budget of instructions per QGMMA besides its FP32 math (FFMA / FADD / FMUL: the
//    promotion, one per accumulator, which no schedule removes).
//  - no QGMMA takes a descriptor moved over from vector registers (an R2UR the last writer of
//    its gdesc uniform registers): the descriptors are warp-uniform, and ptxas builds them per
//    lane only where it lost track of that (a K range read from shared memory, a walk not known
//    to start converged), then adds an R2UR per descriptor word before every wgmma. The grouped
//    Blockwise 128 x 256 kernel did, unnoticed by the budgets, and ran 12-25 % slower
//    (docs/grouped.md; spilling_policies.cu checks it now). Not a law: the one-consumer 64 x 64
//    grouped Blockwise kernel does and runs faster so, and is not among the checked sources. Each
//    line names the rules a kernel breaks ([...]).
// The H200 showed that instruction count is what bounds the promoted loops (bench/NOTES.md,
// twelfth section: 168 -> ~125 instructions per k-block took Blockwise from 0.79 to 0.86x cuBLASLt
// on the same tile), so a change that puts the descriptor or index math back into the loop fails
// here before it reaches a GPU. Budgets per loop kind, on the command line:
//   sass_loop_check <sass.txt> <promoted budget> <blockwise budget> <fast budget>
// "fast": a loop without FP32 math (FastAccumulation); "blockwise": a kernel whose name holds
// Blockwise; "promoted": the rest.
// With a fifth argument, a fragment of a policy's mangled name, it also checks the L2 cache
// hints (kL2StreamHints): the kernels of that policy issue TMA copies with an L2 cache policy
// (`UTMALDG ... desc[...]`), every other kernel none.
//   sass_loop_check <sass.txt> <promoted> <blockwise> <fast> [<hinted policy>]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

namespace {

struct Instruction {
  long address = 0;
  std::string text;  // without the predicate
};

struct Kernel {
  std::string name;
  std::vector<Instruction> code;
};

bool starts_with(std::string const& s, char const* prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::vector<Kernel> parse(std::istream& in) {
  std::vector<Kernel> kernels;
  std::regex const function(R"(Function : (\S+))");
  std::regex const instruction(R"(/\*([0-9a-f]{4,})\*/\s+(@!?U?P[0-9T]\s+)?([^;]*);)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, function)) {
      kernels.push_back({m[1].str(), {}});
    } else if (!kernels.empty() && std::regex_search(line, m, instruction)) {
      kernels.back().code.push_back({std::stol(m[1].str(), nullptr, 16), m[3].str()});
    }
  }
  return kernels;
}

struct Loop {
  int instructions = 0;
  int qgmma = 0;
  int fp32 = 0;              // FFMA, FADD, FMUL
  long first = 0, last = 0;  // addresses of the branch target and the backward branch
  double others_per_qgmma() const {
    return qgmma > 0 ? static_cast<double>(instructions - fp32) / qgmma : 0.0;
  }
};

/// The K loops: the smallest loop (a backward branch and its target) that holds a QGMMA, and
/// every other copy of it, i.e. loops apart from it with as many QGMMA and at most twice its
/// instructions (the Blockwise kernels' main loop comes twice: scales from the ring or from
/// global memory; each must keep the budget). Empty if no loop holds a QGMMA.
std::vector<Loop> k_loops(Kernel const& k) {
  std::regex const branch(R"(^BRA (?:`\()?0x([0-9a-f]+))");
  std::vector<Loop> loops;
  std::smatch m;
  for (Instruction const& br : k.code) {
    if (!std::regex_search(br.text, m, branch)) continue;
    long const target = std::stol(m[1].str(), nullptr, 16);
    if (target >= br.address) continue;
    Loop l;
    l.first = target, l.last = br.address;
    for (Instruction const& i : k.code) {
      if (i.address < target || i.address > br.address) continue;
      ++l.instructions;
      if (starts_with(i.text, "QGMMA")) ++l.qgmma;
      if (starts_with(i.text, "FFMA") || starts_with(i.text, "FADD") || starts_with(i.text, "FMUL"))
        ++l.fp32;
    }
    if (l.qgmma > 0) loops.push_back(l);
  }
  std::sort(loops.begin(), loops.end(),
            [](Loop const& a, Loop const& b) { return a.instructions < b.instructions; });
  std::vector<Loop> copies;
  for (Loop const& l : loops) {
    bool const apart = std::none_of(copies.begin(), copies.end(), [&](Loop const& c) {
      return l.first <= c.last && c.first <= l.last;
    });
    if (copies.empty() ||
        (apart && l.qgmma == copies[0].qgmma && l.instructions <= 2 * copies[0].instructions))
      copies.push_back(l);
  }
  return copies;
}

/// A short name for a mangled WarpSpecializedGemmKernel: tile, warpgroups, stages, granularity,
/// and the schedule / cluster when they are not the default (e.g. "128x256 w2 s3 Blockwise").
std::string label(std::string const& mangled) {
  std::smatch m;
  std::string out;
  if (mangled.find("Sm90WgmmaMediumM") != std::string::npos)
    out = "Sm90WgmmaMediumM";
  else if (std::regex_search(mangled, m,
                             std::regex(R"(WgmmaTilePolicyILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E)")))
    out = m[1].str() + "x" + m[2].str() + " w" + m[3].str() + " s" + m[4].str();
  else if (std::regex_search(mangled, m,
                             std::regex(R"(WgmmaSwapABPolicyILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E)")))
    out = "swapped " + m[1].str() + "x" + m[2].str() + " w" + m[3].str() + " s" + m[4].str();
  for (char const* g : {"PerTensor", "PerChannel"})
    if (mangled.find(g) != std::string::npos) out += std::string(" ") + g;
  if (std::regex_search(mangled, m, std::regex(R"(BlockwiseILi(\d+)ELi(\d+)ELi(\d+)E)")))
    out += " Blockwise<" + m[1].str() + "," + m[2].str() + "," + m[3].str() + ">";
  if (mangled.find("WgmmaScheduleE1") != std::string::npos) out += " ping-pong";
  if (std::regex_search(mangled, std::regex("WgmmaMulticastE[12]"))) out += " multicast";
  return out.empty() ? mangled.substr(0, 60) : out;
}

/// QGMMAs whose descriptor (gdesc[URn], the uniform registers URn .. URn+3) has a register whose
/// last writer, in address order before the QGMMA, is an R2UR: built in vector registers and
/// moved over. A ".64" writer (UMOV.64, ULDC.64, UIADD3.64) writes two registers.
int moved_descriptors(Kernel const& k) {
  std::regex const desc(R"(gdesc\[UR(\d+)\])");
  std::regex const writer(R"(^(\S+)\s+UR(\d+)\b)");
  int moved = 0;
  std::smatch m, w;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    if (!starts_with(k.code[i].text, "QGMMA") || !std::regex_search(k.code[i].text, m, desc))
      continue;
    int const base = std::stoi(m[1].str());
    bool any_moved = false;
    for (int r = base; r < base + 4 && !any_moved; ++r) {
      for (std::size_t j = i; j-- > 0;) {
        if (!std::regex_search(k.code[j].text, w, writer)) continue;
        int const first = std::stoi(w[2].str());
        int const last = first + (w[1].str().find(".64") != std::string::npos ? 1 : 0);
        if (r < first || r > last) continue;
        any_moved = starts_with(w[1].str(), "R2UR");
        break;
      }
    }
    moved += any_moved ? 1 : 0;
  }
  return moved;
}

int count_prefix(Kernel const& k, char const* prefix) {
  int n = 0;
  for (Instruction const& i : k.code) n += starts_with(i.text, prefix) ? 1 : 0;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::cerr << "usage: sass_loop_check <sass.txt> <promoted budget> <blockwise budget> "
                 "<fast budget> [<hinted policy>]\n";
    return 2;
  }
  std::string const hinted_policy = argc == 6 ? argv[5] : "";
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  double const budget_promoted = std::atof(argv[2]);
  double const budget_blockwise = std::atof(argv[3]);
  double const budget_fast = std::atof(argv[4]);
  int checked = 0, failed = 0;
  for (Kernel const& k : parse(in)) {
    if (k.name.find("WarpSpecializedGemmKernel") == std::string::npos ||
        k.name.find("SplitKReduce") != std::string::npos)
      continue;
    ++checked;
    int const qgmma = count_prefix(k, "QGMMA"), hmma = count_prefix(k, "HMMA");
    // the copy of the K loop with the most other instructions per QGMMA is the one checked
    std::vector<Loop> const loops = k_loops(k);
    Loop l;
    for (Loop const& c : loops)
      if (l.qgmma == 0 || c.others_per_qgmma() > l.others_per_qgmma()) l = c;
    bool const blockwise = k.name.find("Blockwise") != std::string::npos;
    char const* kind = l.fp32 == 0 ? "fast" : blockwise ? "blockwise" : "promoted";
    double const budget = l.fp32 == 0 ? budget_fast
                          : blockwise ? budget_blockwise
                                      : budget_promoted;
    double const per_qgmma = l.others_per_qgmma();
    std::string copies;  // every copy's others per QGMMA, in address order
    std::vector<Loop> by_address = loops;
    std::sort(by_address.begin(), by_address.end(),
              [](Loop const& a, Loop const& b) { return a.first < b.first; });
    for (Loop const& c : by_address) {
      char one[32];
      std::snprintf(one, sizeof(one), "%s%.2f", copies.empty() ? "" : " / ", c.others_per_qgmma());
      copies += one;
    }
    // TMA copies with an L2 cache policy operand: at least A's and B's in the hinted policy's
    // kernels, none elsewhere
    int hinted = 0;
    for (Instruction const& i : k.code)
      hinted += starts_with(i.text, "UTMALDG") && i.text.find("desc[") != std::string::npos;
    bool const wants_hints =
        !hinted_policy.empty() && k.name.find(hinted_policy) != std::string::npos;
    bool const hints_ok = hinted_policy.empty() || (wants_hints ? hinted >= 2 : hinted == 0);
    int const moved = moved_descriptors(k);
    std::string why;  // every rule the kernel breaks
    if (qgmma == 0 || l.qgmma == 0) why += " [no QGMMA K loop]";
    if (hmma > 0) why += " [HMMA]";
    if (l.qgmma > 0 && per_qgmma > budget) why += " [over budget]";
    if (!hints_ok) why += " [L2 hints]";
    if (moved > 0) why += " [moved descriptors]";
    bool const ok = why.empty();
    std::printf(
        "%s %-9s QGMMA %3d HMMA %d K loop %4d instructions, %3d QGMMA, %3d FP32: %5.2f others per "
        "QGMMA (budget %.2f; copies: %s), %d L2-hinted copies%s, %d descriptors moved from "
        "vector registers%s%s  %s\n",
        ok ? "ok  " : "FAIL", kind, qgmma, hmma, l.instructions, l.qgmma, l.fp32, per_qgmma, budget,
        copies.c_str(), hinted,
        hints_ok ? "" : (wants_hints ? " (expected >= 2)" : " (expected 0)"), moved,
        moved == 0 ? "" : " (expected 0)", why.c_str(), label(k.name).c_str());
    failed += ok ? 0 : 1;
  }
  if (checked == 0) {
    std::printf("no WarpSpecializedGemmKernel in %s\n", argv[1]);
    return 1;
  }
  std::printf(
      "%d kernels, %d over budget, without QGMMA / with HMMA, with L2 hints where not expected, "
      "or with descriptors moved from vector registers\n",
      checked, failed);
  return failed == 0 ? 0 : 1;
}
