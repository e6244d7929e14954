// SPDX-License-Identifier: MIT
/// One random grouped problem for any GemmConfig (test helpers): one GemmProblem per non-empty
/// group (its own A rows, B, scales, bias and FP64 reference), packed into the layouts
/// GroupedGemm takes; every byte of A, B and the scales that belongs to no group is poison (an fp8
/// NaN, a NaN scale). Tiles do read rows past their group's end (by design: they feed outputs
/// nothing stores), so the poison shows where such values reach a stored output or the amax. C is
/// checked per group within the group's derived bound, and every element of C outside the groups'
/// rows must still hold the poison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "common/gemm_harness.hpp"
#include "fp8gemm/device/grouped_gemm.hpp"

namespace fp8gemm::test {

struct GroupedCase {
  GroupMode mode = GroupMode::kContiguous;
  int n = 1, k = 1;
  std::vector<int> rows;  // per group (batched: all equal)
  int m = -1;             // contiguous: rows of A and C (>= the sum; -1: the sum + 5); masked:
                          // capacity (-1: the largest group + 3); batched: M (-1: rows[0])
  int a_pad_rows = 0;     // masked / batched: rows of A between groups beyond m (stride_a)
  int b_pad_rows = 0;     // rows of B between groups beyond N (stride_b)
  std::uint64_t seed = 1;
  bool bias = true;
  int ldc_pad = 3;      // ldc = N + ldc_pad (3: odd, no TMA store of C; 0 with 16-byte rows: TMA)
  int c_pad_rows = 0;   // masked / batched: rows of C between groups beyond m (stride_c)
  int c_pad_elems = 0;  // and elements beyond whole rows (odd: groups of C not whole rows apart)
  int split_k = 1;      // GroupedArguments::split_k
};

inline std::string describe(GroupedCase const& c) {
  std::ostringstream s;
  s << group_mode_name(c.mode) << " G=" << c.rows.size() << " N=" << c.n << " K=" << c.k
    << " m=" << c.m << " ldc N+" << c.ldc_pad << (c.split_k > 1 ? " split_k " : "")
    << (c.split_k > 1 ? std::to_string(c.split_k) : std::string()) << " rows {";
  for (std::size_t i = 0; i < c.rows.size() && i < 12; ++i) s << (i ? "," : "") << c.rows[i];
  if (c.rows.size() > 12) s << ",...";
  s << "} seed " << c.seed;
  return s.str();
}

template <class Config>
struct GroupedProblem {
  using GG = GroupedGemm<Config>;
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  using Granularity = typename Config::Granularity;
  static constexpr bool kPerTensor = std::is_same_v<Granularity, PerTensor>;

  GroupedCase cs;
  int groups = 0;
  std::vector<std::unique_ptr<GemmProblem<Config>>> per;  // null for an empty group
  std::vector<int> first;  // each group's first row of flattened A (= of C's rows)
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  int a_group_rows = 0, b_group_rows = 0, rows_a = 0, rows_b = 0;
  std::int64_t stride_c = 0, c_elements = 0;  // C: group g's at g · stride_c (contiguous: rows)
  std::vector<ElementA> a;                    // [rows_a, lda]
  std::vector<ElementB> b;                    // [rows_b, ldb]
  std::vector<Scale> sa, sb;
  std::vector<float> bias;  // [G, N]
  std::vector<int> offs, masked_m;
  float out_scale = 0.0f;  // fp8 C: one for every group

  explicit GroupedProblem(GroupedCase c) : cs(std::move(c)) {
    groups = static_cast<int>(cs.rows.size());
    int const sum = std::accumulate(cs.rows.begin(), cs.rows.end(), 0);
    int const largest = *std::max_element(cs.rows.begin(), cs.rows.end());
    if (cs.m < 0)
      cs.m = cs.mode == GroupMode::kContiguous ? sum + 5
             : cs.mode == GroupMode::kMasked   ? largest + 3
                                               : cs.rows[0];
    per.resize(groups);
    for (int g = 0; g < groups; ++g) {
      if (cs.rows[g] == 0) continue;
      GemmCase gc{cs.rows[g], cs.n, cs.k, cs.seed * 1000003 + g};
      gc.bias = cs.bias;
      gc.ldc_pad = cs.ldc_pad;
      per[g] = std::make_unique<GemmProblem<Config>>(gc);
    }
    GemmProblem<Config> const* any = nullptr;
    for (auto const& p : per)
      if (p) any = p.get();
    if (any == nullptr) {  // every group empty: the layout of a one-row problem
      GemmCase gc{1, cs.n, cs.k, cs.seed};
      gc.ldc_pad = cs.ldc_pad;
      GemmProblem<Config> const one(gc);
      lda = one.lda, ldb = one.ldb, ldc = one.ldc;
    } else {
      lda = any->lda, ldb = any->ldb, ldc = any->ldc;
    }
    if constexpr (is_output_fp8_v<ElementC>) {  // one output scale: the largest group's
      for (auto const& p : per)
        if (p) out_scale = std::max(out_scale, p->out_scale);
      for (auto& p : per)
        if (p) p->cs.out_scale = out_scale, p->derive_reference();
    }
    pack();
  }

  /// The flattened operands, scales and bias, poison where no group is.
  void pack() {
    bool const contiguous = cs.mode == GroupMode::kContiguous;
    a_group_rows = contiguous ? 0 : cs.m + cs.a_pad_rows;
    b_group_rows = cs.n + cs.b_pad_rows;
    rows_a = contiguous ? cs.m : (groups - 1) * a_group_rows + cs.m;
    rows_b = (groups - 1) * b_group_rows + cs.n;
    stride_c = contiguous ? 0 : std::int64_t(cs.m + cs.c_pad_rows) * ldc + cs.c_pad_elems;
    c_elements = contiguous ? std::int64_t(cs.m) * ldc : (groups - 1) * stride_c + cs.m * ldc;
    first.assign(groups, 0);
    int running = 0;
    for (int g = 0; g < groups; ++g) {
      first[g] = contiguous ? running : g * a_group_rows;
      running += cs.rows[g];
      offs.push_back(running);
      masked_m.push_back(cs.rows[g]);
    }
    a.assign(std::size_t(rows_a) * lda, ElementA::from_bits(FormatTraits<ElementA>::kNanBits));
    b.assign(std::size_t(rows_b) * ldb, ElementB::from_bits(FormatTraits<ElementB>::kNanBits));
    ScaleShape const ssa = scale_shape<Granularity>(Operand::kA, rows_a, cs.k);
    ScaleShape const ssb = scale_shape<Granularity>(Operand::kB, rows_b, cs.k);
    Scale const nan_scale = nan_scale_value();
    sa.assign(kPerTensor ? groups : ssa.size(), nan_scale);
    sb.assign(kPerTensor ? groups : ssb.size(), nan_scale);
    bias.assign(std::size_t(groups) * cs.n, std::numeric_limits<float>::quiet_NaN());
    for (int g = 0; g < groups; ++g) {
      GemmProblem<Config> const* p = per[g].get();
      if (p == nullptr) continue;
      std::copy(p->a_q.begin(), p->a_q.end(), a.begin() + std::int64_t(first[g]) * lda);
      std::copy(p->b_q.begin(), p->b_q.end(), b.begin() + std::int64_t(g) * b_group_rows * ldb);
      Scale const* psa = p->host_scale_a();
      Scale const* psb = p->host_scale_b();
      if constexpr (kPerTensor) {
        sa[g] = psa[0];
        sb[g] = psb[0];
      } else {  // rows of scales follow the operand's rows (block rows for K-blocked ones)
        std::int64_t const a_at = std::int64_t(first[g]) / block_rows(Operand::kA) * ssa.cols;
        std::int64_t const b_at =
            std::int64_t(g) * b_group_rows / block_rows(Operand::kB) * ssb.cols;
        std::copy(psa, psa + p->scale_a_size(), sa.begin() + a_at);
        std::copy(psb, psb + p->scale_b_size(), sb.begin() + b_at);
      }
      if (cs.bias) std::copy(p->bias_f.begin(), p->bias_f.end(), bias.begin() + g * cs.n);
    }
  }

  /// Rows of the operand per row of scales (K-blocked: the block's; else 1).
  static int block_rows(Operand op) {
    if constexpr (Granularity::kBlockK > 0)
      return op == Operand::kA ? Granularity::kABlockM : Granularity::kBBlockN;
    else
      return 1;
  }

  static Scale nan_scale_value() {
    if constexpr (std::is_same_v<Scale, float>)
      return std::numeric_limits<float>::quiet_NaN();
    else
      return Scale::from_bits(0xFF);  // e8m0 NaN
  }

  std::size_t c_size() const { return std::size_t(c_elements); }
  /// Where group g's C[0][0] is.
  std::int64_t c_start(int g) const {
    return cs.mode == GroupMode::kContiguous ? std::int64_t(first[g]) * ldc : g * stride_c;
  }

  typename GG::Arguments arguments(ElementA const* a_d, ElementB const* b_d, Scale const* sa_d,
                                   Scale const* sb_d, float const* bias_d, int const* counts_d,
                                   ElementC* c_d, float* amax_d, void* workspace) const {
    typename GG::Arguments args;
    args.mode = cs.mode;
    args.problem = {cs.m, cs.n, cs.k, groups};
    args.a = a_d, args.lda = lda, args.b = b_d, args.ldb = ldb;
    if (cs.mode != GroupMode::kContiguous) args.stride_a = std::int64_t(a_group_rows) * lda;
    args.stride_b = std::int64_t(b_group_rows) * ldb;
    if (cs.mode != GroupMode::kContiguous) args.stride_c = stride_c;
    if (cs.mode == GroupMode::kContiguous) args.offs = counts_d;
    if (cs.mode == GroupMode::kMasked) args.masked_m = counts_d;
    args.scale_a = sa_d, args.scale_a_count = static_cast<std::int64_t>(sa.size());
    args.scale_b = sb_d, args.scale_b_count = static_cast<std::int64_t>(sb.size());
    args.epilogue.c = c_d, args.epilogue.ldc = ldc, args.epilogue.bias = cs.bias ? bias_d : nullptr;
    args.epilogue.amax = amax_d;
    if constexpr (is_output_fp8_v<ElementC>) args.epilogue.output_scale = out_scale;
    args.workspace = workspace;
    args.split_k = cs.split_k;
    return args;
  }

  /// The device counts the mode reads (offs or masked_m), or none.
  std::vector<int> const& counts() const {
    return cs.mode == GroupMode::kContiguous ? offs : masked_m;
  }

  /// C (host copy, c_size() elements) against every group's FP64 reference; every element of no
  /// group's rows still poison; amax (unless given as < 0: not asked for; NaN is checked) the
  /// largest group's within the bound of any group.
  ::testing::AssertionResult check(std::vector<ElementC> const& c, float amax) const {
    std::vector<char> owned(c.size(), 0);
    double amax_ref = 0.0, amax_tol = 0.0;
    bool nan_expected = false;
    for (int g = 0; g < groups; ++g) {
      GemmProblem<Config> const* p = per[g].get();
      if (p == nullptr) continue;
      std::int64_t const at = c_start(g), end = at + std::int64_t(cs.rows[g]) * ldc;
      std::vector<ElementC> const cg(c.begin() + at, c.begin() + end);
      ::testing::AssertionResult const r = p->check(cg, -1.0f, nullptr);
      if (!r) return ::testing::AssertionFailure() << "group " << g << ": " << r.message();
      std::fill(owned.begin() + at, owned.begin() + end, 1);  // its padding columns checked there
      std::vector<double> const b32 = element_bounds(p->tolerance(OutputType::kF32), p->ref, p->epi,
                                                     cs.bias ? p->bias_d.data() : nullptr);
      amax_ref = std::max(amax_ref, p->epi.amax);
      amax_tol = std::max(amax_tol, *std::max_element(b32.begin(), b32.end()));
      for (double v : p->epi.y) nan_expected = nan_expected || std::isnan(v);
    }
    for (std::size_t i = 0; i < c.size(); ++i)
      if (!owned[i] && !is_poison(c[i]))
        return ::testing::AssertionFailure() << "C element " << i << " (no group's) was written";
    if (!(amax < 0) &&
        (nan_expected ? !std::isnan(amax) : !(std::fabs(amax - amax_ref) <= amax_tol)))
      return ::testing::AssertionFailure()
             << "amax " << amax << " vs the groups' " << amax_ref << " (tol " << amax_tol << ")";
    return ::testing::AssertionSuccess();
  }
};

}  // namespace fp8gemm::test
