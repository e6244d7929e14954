// SPDX-License-Identifier: MIT
// fp8gemm_isa_steady_state: the steady-state K-loop analysis of tests/isa (steady_state.hpp) on any
// amdgcn .s file, e.g. a peer kernel compiled by the same clang for a side-by-side row
// (docs/isa_report.md gives the HipKittens command). Prints the counts per K step, llvm-mca's
// matrix-pipe share, the uniform-branch decisions and, with --verbose, every decision.
//
//   fp8gemm_isa_steady_state ASM --kernel SUBSTRING --arch gfx950|gfx942 --mfma-per-kstep N
//                            [--loop I] [--mca PATH] [--mca-input FILE] [--verbose]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "steady_state.hpp"

namespace {

int usage(char const* why) {
  std::fprintf(
      stderr,
      "error: %s\nusage: fp8gemm_isa_steady_state ASM --kernel SUBSTRING --arch gfx950|gfx942 "
      "--mfma-per-kstep N [--loop I] [--mca PATH] [--mca-input FILE] [--verbose]\n",
      why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fp8gemm::isa;
  std::string asm_path, kernel, arch, mca = "llvm-mca-22", mca_file = "steady_state.mca.s";
  int per_kstep = 0, loop = 0;
  bool verbose = false;
  for (int a = 1; a < argc; ++a) {
    std::string const s = argv[a];
    auto value = [&]() -> std::string { return a + 1 < argc ? argv[++a] : ""; };
    if (s == "--kernel")
      kernel = value();
    else if (s == "--arch")
      arch = value();
    else if (s == "--mfma-per-kstep")
      per_kstep = std::atoi(value().c_str());
    else if (s == "--loop")
      loop = std::atoi(value().c_str());
    else if (s == "--mca")
      mca = value();
    else if (s == "--mca-input")
      mca_file = value();
    else if (s == "--verbose")
      verbose = true;
    else if (asm_path.empty() && s[0] != '-')
      asm_path = s;
    else
      return usage(("unknown argument " + s).c_str());
  }
  if (asm_path.empty() || kernel.empty() || arch.empty() || per_kstep <= 0)
    return usage("missing argument");
  std::ifstream f(asm_path);
  if (!f) return usage(("cannot read " + asm_path).c_str());
  std::stringstream ss;
  ss << f.rdbuf();
  std::vector<AsmKernel> const ks = parse_asm(ss.str());
  AsmKernel const* k = nullptr;
  for (auto const& x : ks)
    if (x.symbol.find(kernel) != std::string::npos) k = &x;
  if (k == nullptr) return usage(("no function whose symbol contains " + kernel).c_str());
  std::vector<std::string> const loops = k_loop_headers(*k);
  if (loop < 0 || loop >= static_cast<int>(loops.size()))
    return usage("no such K loop (a depth-1 loop holding MFMAs)");
  SteadyStatePath const p = steady_state_path(*k, loops[loop]);
  std::printf("kernel %s\nK loop %d of %zu: header %s\n", k->symbol.c_str(), loop + 1, loops.size(),
              p.header.c_str());
  if (verbose)
    for (auto const& d : p.decisions) std::printf("  path: %s\n", d.c_str());
  else
    for (auto const& d : p.uniform) std::printf("  uniform: %s\n", d.c_str());
  if (!p.error.empty()) {
    std::printf("no steady-state trip: %s\n", p.error.c_str());
    return 1;
  }
  TripCounts const c = count_trip(p.instrs);
  double const ksteps = double(c.mfma) / per_kstep;
  auto per = [ksteps](double v) { return v / ksteps; };
  // the stand-in input goes to mca_file; the plain and doubled inputs beside it
  std::string const base =
      mca_file.size() > 6 && mca_file.compare(mca_file.size() - 6, 6, ".mca.s") == 0
          ? mca_file.substr(0, mca_file.size() - 6)
          : mca_file;
  TripPrice const price = price_trip(mca, p.instrs, arch, base);
  if (base + ".mca.s" != mca_file) std::rename((base + ".mca.s").c_str(), mca_file.c_str());
  McaResult const& r = price.stand_in;
  std::printf("trip: %d instructions in %zu blocks, %d MFMAs = %.3g K steps\n", c.instrs,
              p.blocks.size(), c.mfma, ksteps);
  std::printf("per K step per wave:\n");
  std::printf("  MFMAs                                 %.3g\n", per(c.mfma));
  std::printf("  s_waitcnt (to zero)                   %.3g (%.3g)\n", per(c.waitcnt),
              per(c.waitcnt_zero));
  std::printf("  waits to zero directly before an MFMA %.3g (past s_setprio/s_nop: %.3g)\n",
              per(c.zero_wait_before_mfma), per(c.zero_wait_before_mfma_loose));
  std::printf("  non-MFMA instructions per MFMA        %.3g\n", c.nonmfma_per_mfma());
  std::printf("  longest back-to-back MFMA run         %d\n", c.longest_mfma_run);
  std::printf("  register-staged global loads          %.3g (%.3g B/lane)\n", per(c.staged_loads),
              per(c.staged_load_bytes));
  std::printf("  direct-to-LDS loads                   %.3g\n", per(c.lds_direct_loads));
  std::printf("  ds_read / ds_write / s_barrier        %.3g / %.3g / %.3g\n", per(c.ds_reads),
              per(c.ds_writes), per(c.barriers));
  std::printf("  scratch instructions                  %.3g\n", per(c.scratch_instrs));
  auto meta = [k](char const* key) {
    auto const it = k->meta.find(key);
    return it == k->meta.end() ? std::string("?") : it->second;
  };
  std::printf("kernel: VGPR %s (AGPR %s), scratch %s B, LDS (static) %s B\n",
              meta(".vgpr_count").c_str(), meta(".agpr_count").c_str(),
              meta(".private_segment_fixed_size").c_str(),
              meta(".group_segment_fixed_size").c_str());
  if (!r.error.empty()) {
    std::printf("llvm-mca: %s\n", r.error.c_str());
    return 1;
  }
  std::printf(
      "llvm-mca (%s, %d iterations, FP8-operand f8f6f4 at the FP8 rate by a stand-in MFMA): %.1f "
      "cycles per K step, matrix pipe %.1f, share %.3f\n",
      arch.c_str(), r.iterations, per(r.cycles_per_trip), per(r.matrix_per_trip), r.share());
  if (price.twice.error.empty())
    std::printf("  written twice instead (the previous pricing): %.1f cycles, share %.3f\n",
                per(price.twice.cycles_per_trip), price.twice.share());
  return 0;
}
