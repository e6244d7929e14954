// SPDX-License-Identifier: MIT
/// Runs a GemmProblem through the host emulator (host memory) and checks it (test helpers).
#pragma once

#include <initializer_list>
#include <iostream>
#include <string>
#include <vector>

#include "common/gemm_harness.hpp"

namespace fp8gemm::test {

/// Poisons C, runs Gemm<Config> on host memory (the emulator), checks against FP64; `c_out` (if
/// given) gets C.
template <class Config>
::testing::AssertionResult run_on_host(GemmProblem<Config> const& p, std::string* report = nullptr,
                                       std::vector<typename Config::ElementC>* c_out = nullptr) {
  using ElementC = typename Config::ElementC;
  std::vector<ElementC> c(p.c_size());
  poison_host(c);
  float amax = -1.0f;
  auto args = p.arguments(p.a_q.data(), p.b_q.data(), p.host_scale_a(), p.host_scale_b(),
                          p.cs.bias ? p.bias_f.data() : nullptr, c.data(), &amax);
  std::vector<unsigned char> workspace(Gemm<Config>::workspace_size(args));
  args.workspace = workspace.empty() ? nullptr : workspace.data();
  Status const st = Gemm<Config>::run(args);
  if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
  if (c_out != nullptr) *c_out = c;
  return p.check(c, amax, report);
}

/// Each case through run_on_host, expected within the derived bound; prints its error report.
template <class Config>
void expect_host_matches_fp64(std::initializer_list<GemmCase> cases) {
  for (GemmCase const& c : cases) {
    GemmProblem<Config> const p(c);
    std::string report;
    EXPECT_TRUE(run_on_host(p, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  }
}

}  // namespace fp8gemm::test
