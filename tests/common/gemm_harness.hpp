// SPDX-License-Identifier: MIT
/// One random GEMM problem for any GemmConfig: generate, quantize, build Gemm::Arguments over the
/// caller's buffers (host memory for the emulator, device memory for the GPU), check the result
/// against the FP64 reference (test helpers, namespace fp8gemm::test).
///
/// Two error notions, both computed:
///   kernel exactness — against FP64 on the already-quantized operands, per element within the
///     derived bound of tolerance.hpp (FP32 accumulation, scale/promotion/bias operations, the
///     activation, the output rounding); asserted.
///   end-to-end — normwise relative error against FP64 on the original unquantized inputs (the
///     quantization error users see); reported, and asserted only against a loose sanity limit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/generators.hpp"
#include "common/metrics.hpp"
#include "common/poison.hpp"
#include "common/reference_gemm.hpp"
#include "common/tolerance.hpp"
#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/quant/quantize_host.hpp"

namespace fp8gemm::test {

template <class Act>
constexpr Activation activation_of() {
  if constexpr (std::is_same_v<Act, GeluTanh>)
    return Activation::kGeluTanh;
  else if constexpr (std::is_same_v<Act, GeluErf>)
    return Activation::kGeluErf;
  else
    return Activation::kIdentity;
}

template <class C>
constexpr OutputType output_of() {
  if constexpr (std::is_same_v<C, float>)
    return OutputType::kF32;
  else if constexpr (std::is_same_v<C, bf16>)
    return OutputType::kBf16;
  else if constexpr (std::is_same_v<C, fp16>)
    return OutputType::kF16;
  else if constexpr (std::is_same_v<C, e4m3fn>)
    return OutputType::kE4m3fn;
  else if constexpr (std::is_same_v<C, e5m2>)
    return OutputType::kE5m2;
  else if constexpr (std::is_same_v<C, e4m3fnuz>)
    return OutputType::kE4m3fnuz;
  else
    return OutputType::kE5m2fnuz;
}

template <class C>
double output_to_double(C v) {
  if constexpr (std::is_same_v<C, float>)
    return v;
  else if constexpr (std::is_same_v<C, bf16>)
    return bf16_to_float(v);
  else if constexpr (std::is_same_v<C, fp16>)
    return fp16_to_float(v);
  else
    return fp8_to_float(v);
}

template <class A, class = void>
struct has_accumulator_roundoff : std::false_type {};
template <class A>
struct has_accumulator_roundoff<A, std::void_t<decltype(A::kAccumulatorUnitRoundoff)>>
    : std::true_type {};

/// Unit roundoff of the atom's accumulation between promotions (FP32 unless the atom says less).
template <class Atom>
constexpr double accumulator_unit_roundoff() {
  if constexpr (has_accumulator_roundoff<Atom>::value)
    return Atom::kAccumulatorUnitRoundoff;
  else
    return kFp32UnitRoundoff;
}

struct GemmCase {
  int m = 1, n = 1, k = 1;
  std::uint64_t seed = 1;
  Distribution distribution = Distribution::kNormal;
  bool bias = true;
  int split_k = 1;
  std::int64_t nan_at = -1;  // >= 0: A element (row-major m*K + k) replaced by the format's NaN
  int ldc_pad = 3;           // ldc = N + ldc_pad (3: not the width, and odd)
  int sm_count = 0;          // WGMMA kernel: > 0 runs on at most that many SMs
  float out_scale = 0.0f;    // fp8 C: > 0 is the output scale (else amax(y) / the format's max)
};

/// gtest name of a typed test's GemmConfig parameter: Gemm<Config>::name().
struct ConfigName {
  template <class Config>
  static std::string GetName(int) {
    return Gemm<Config>::name();
  }
};

inline std::string describe(GemmCase const& c) {
  std::ostringstream s;
  s << c.m << "x" << c.n << "x" << c.k << " " << distribution_name(c.distribution) << " seed "
    << c.seed << (c.bias ? " bias" : "") << " split_k " << c.split_k;
  return s.str();
}

/// Base with its mainloop replaced (same policy, epilogue and tile scheduler): a variant of a
/// kernel for a test, e.g. every counted wait one load short, or another tile-load path.
template <class Base, class MainloopT>
struct WithMainloop : Base {
  using Mainloop = MainloopT;
  using Kernel =
      GemmKernel<Mainloop, typename Base::CollectiveEpilogue, typename Base::TileScheduler>;
  using Params = typename Kernel::Params;
};

template <class Config>
struct GemmProblem {
  using G = Gemm<Config>;
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  using Granularity = typename Config::Granularity;
  static constexpr LayoutB kLayoutB = Config::kLayoutB;
  static constexpr bool kMx = std::is_same_v<Granularity, Mx32>;

  GemmCase cs;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<float> a_f, b_f;     // unquantized inputs
  std::vector<ElementA> a_q;       // [M, lda]
  std::vector<ElementB> b_q;       // kNK: [N, ldb]; kKN: [K, ldb]
  std::vector<float> sa_f, sb_f;   // float scales (non-MX)
  std::vector<e8m0> sa_mx, sb_mx;  // MX scales
  std::vector<float> bias_f;
  std::vector<double> bias_d;
  float out_scale = 1.0f;
  GemmReference ref;  // on the quantized operands
  EpilogueReference epi;
  std::vector<double> bound;

  explicit GemmProblem(GemmCase c) : cs(c) {
    lda = (c.k + 15) / 16 * 16;
    ldb = kLayoutB == LayoutB::kNK ? lda : (c.n + 15) / 16 * 16;
    ldc = c.n + c.ldc_pad;  // by default a leading dimension that is not the width
    a_f = random_matrix(c.m, c.k, lda, c.distribution, c.seed * 7919 + 1);
    std::int64_t const b_rows = kLayoutB == LayoutB::kNK ? c.n : c.k;
    std::int64_t const b_cols = kLayoutB == LayoutB::kNK ? c.k : c.n;
    // B is N(0, 1), or with kKRanges the same K pattern as A's (its k-blocks a power of two apart)
    b_f = random_matrix(
        b_rows, b_cols, ldb,
        c.distribution == Distribution::kKRanges ? Distribution::kKRanges : Distribution::kNormal,
        c.seed * 7919 + 2, kLayoutB == LayoutB::kKN);
    a_q.resize(static_cast<std::size_t>(c.m * lda));
    b_q.resize(static_cast<std::size_t>(b_rows * ldb));
    ScaleShape const ssa = scale_shape<Granularity>(Operand::kA, c.m, c.k);
    ScaleShape const ssb = scale_shape<Granularity>(Operand::kB, c.n, c.k);
    if constexpr (kMx) {
      sa_mx.resize(ssa.size());
      sb_mx.resize(ssb.size());
    } else {
      sa_f.resize(ssa.size());
      sb_f.resize(ssb.size());
    }
    QuantizeAArgs<ElementA> qa;
    qa.x = a_f.data(), qa.m = c.m, qa.k = c.k, qa.lda = lda, qa.q = a_q.data(), qa.ldq = lda;
    qa.scales = kMx ? nullptr : sa_f.data();
    qa.mx_scales = kMx ? sa_mx.data() : nullptr;
    qa.scale_count = ssa.size();
    QuantizeBArgs<ElementB> qb;
    qb.x = b_f.data(), qb.n = c.n, qb.k = c.k, qb.ldb = ldb, qb.layout = kLayoutB,
    qb.q = b_q.data();
    qb.ldq = ldb;
    qb.scales = kMx ? nullptr : sb_f.data();
    qb.mx_scales = kMx ? sb_mx.data() : nullptr;
    qb.scale_count = ssb.size();
    Status const st_a = quantize_a_host<ElementA, Granularity>(qa);
    Status const st_b = quantize_b_host<ElementB, Granularity>(qb);
    if (!st_a.ok() || !st_b.ok())
      throw std::runtime_error("quantize: " + st_a.to_string() + " / " + st_b.to_string());
    if (c.nan_at >= 0) {
      std::int64_t const r = c.nan_at / c.k, kk = c.nan_at % c.k;
      a_q[r * lda + kk] = ElementA::from_bits(FormatTraits<ElementA>::kNanBits);
    }
    if (c.bias) {
      bias_d = random_bias(c.n, 0.5, c.seed * 7919 + 3);
      bias_f.assign(bias_d.begin(), bias_d.end());
      for (std::size_t i = 0; i < bias_d.size(); ++i)
        bias_d[i] = bias_f[i];  // the float the kernel sees
    }
    derive_reference();
  }

  /// The FP64 reference, the output scale and the bound from a_q, b_q and the scales as they are
  /// (a test that edits them after construction calls it again).
  void derive_reference() {
    GemmCase const& c = cs;
    std::vector<double> const ad =
        dequantize_a<ElementA, Granularity>(a_q.data(), c.m, c.k, lda, sa_f.data(), sa_mx.data());
    std::vector<double> const bd = dequantize_b<ElementB, Granularity>(
        b_q.data(), c.n, c.k, ldb, kLayoutB, sb_f.data(), sb_mx.data());
    ref = reference_gemm(ad, bd, c.m, c.n, c.k);
    constexpr OutputType kOut = output_of<ElementC>();
    constexpr Activation kAct = activation_of<typename Config::Epilogue::Act>();
    if constexpr (is_output_fp8_v<ElementC>) {  // s_out = amax(y) / fmt_max, as a user would pick
                                                // it (or the case's, e.g. one for all groups)
      EpilogueReference const probe =
          reference_epilogue(ref, c.bias ? bias_d.data() : nullptr, kAct, OutputType::kF32);
      double const s = probe.amax / FormatTraits<ElementC>::kMaxFinite;
      out_scale = s > 0 && std::isfinite(s) ? static_cast<float>(s) : 1.0f;
      if (c.out_scale > 0) out_scale = c.out_scale;
    }
    epi = reference_epilogue(ref, c.bias ? bias_d.data() : nullptr, kAct, kOut, out_scale);
    bound = element_bounds(tolerance(kOut), ref, epi, c.bias ? bias_d.data() : nullptr);
  }

  /// The derived tolerance (tolerance.hpp): K products accumulated with the atom's unit roundoff,
  /// plus per promotion chunk an add (K-blocked scales: also two multiplies, (partial·s_a)·s_b
  /// then the add: three roundings counted, an upper bound for the Hopper kernel's two forms,
  /// fma(partial, s_a·s_b, acc) and fma(partial·s_a, s_b, acc), with two each),
  /// plus dequant (2: (acc·s_a)·s_b) and bias (1), plus one add per split-K partial (StreamK<P>:
  /// per k-block, the most segments a tile can be cut into).
  ToleranceParams tolerance(OutputType out) const {
    ToleranceParams p;
    p.k = cs.k;
    int const chunk = Config::Granularity::kBlockK > 0
                          ? std::min(Config::Granularity::kBlockK, Config::Policy::kBlockK)
                          : (Config::kPromoteK > 0 ? Config::kPromoteK : cs.k);
    int const ops_per_chunk = Config::Granularity::kBlockK > 0 ? 3 : 1;
    p.extra_ops = ops_per_chunk * ((cs.k + chunk - 1) / chunk) + 3 + cs.split_k +
                  (IsStreamK<typename Config::Policy>::value
                       ? (cs.k + Config::Policy::kBlockK - 1) / Config::Policy::kBlockK
                       : 0);
    p.unit_roundoff = accumulator_unit_roundoff<typename Config::Policy::Atom>();
    // an accumulator coarser than FP32 (Hopper's tensor core) promoted every `chunk` products:
    // the two-level bound (tolerance.hpp), not the vacuous-at-long-K γ_K of the coarse roundoff
    if (chunk < cs.k && p.unit_roundoff > kFp32UnitRoundoff) p.chunk_k = chunk;
    p.activation = activation_of<typename Config::Epilogue::Act>();
    p.output = out;
    p.out_scale = out_scale;
    p.compare_to_rounded = true;  // checked against the reference rounded to the output type
    return p;
  }

  /// Arguments over the caller's copies of a_q, b_q, scales, bias, and the output / amax buffers.
  typename G::Arguments arguments(ElementA const* a, ElementB const* b, Scale const* sa,
                                  Scale const* sb, float const* bias, ElementC* c,
                                  float* amax) const {
    typename G::Arguments args;
    args.problem = {cs.m, cs.n, cs.k};
    args.a = a, args.lda = lda, args.b = b, args.ldb = ldb;
    args.scale_a = sa, args.scale_b = sb;
    args.scale_a_count = scale_shape<Granularity>(Operand::kA, cs.m, cs.k).size();
    args.scale_b_count = scale_shape<Granularity>(Operand::kB, cs.n, cs.k).size();
    args.epilogue.c = c, args.epilogue.ldc = ldc, args.epilogue.bias = bias;
    args.epilogue.amax = amax;
    if constexpr (is_output_fp8_v<ElementC>)
      args.epilogue.output_scale = out_scale;  // others: unset
    args.split_k = cs.split_k;
    if constexpr (IsWgmmaPolicy<typename Config::Policy>::value) args.sm_count = cs.sm_count;
    return args;
  }

  Scale const* host_scale_a() const {
    if constexpr (kMx)
      return sa_mx.data();
    else
      return sa_f.data();
  }
  Scale const* host_scale_b() const {
    if constexpr (kMx)
      return sb_mx.data();
    else
      return sb_f.data();
  }
  std::size_t scale_a_size() const { return kMx ? sa_mx.size() : sa_f.size(); }
  std::size_t scale_b_size() const { return kMx ? sb_mx.size() : sb_f.size(); }
  std::size_t c_size() const { return static_cast<std::size_t>(cs.m * ldc); }

  /// The values C (host copy, [M, ldc]) stands for, [M, N] (fp8 outputs times out_scale).
  std::vector<double> values(std::vector<ElementC> const& c) const {
    std::vector<double> out(static_cast<std::size_t>(cs.m * cs.n));
    for (int m = 0; m < cs.m; ++m)
      for (int n = 0; n < cs.n; ++n)
        out[m * cs.n + n] =
            output_to_double(c[m * ldc + n]) * (is_output_fp8_v<ElementC> ? out_scale : 1.0);
    return out;
  }

  /// Checks C (host copy, [M, ldc]) and the reported amax; `report` gets both error notions.
  ::testing::AssertionResult check(std::vector<ElementC> const& c, float amax,
                                   std::string* report) const {
    std::vector<double> const out = values(c);
    // Padding columns of C must be untouched (still poison).
    for (int m = 0; m < cs.m; ++m)
      for (std::int64_t n = cs.n; n < ldc; ++n)
        if (!is_poison(c[m * ldc + n]))
          return ::testing::AssertionFailure()
                 << "C padding (m " << m << ", n " << n << ") was written";
    ::testing::AssertionResult within = all_within_bound(out, epi.rounded, bound, cs.m, cs.n);
    // End-to-end: the same epilogue on FP64 products of the unquantized inputs.
    if (report != nullptr) {
      std::vector<double> ad(static_cast<std::size_t>(cs.m * cs.k)),
          bd(static_cast<std::size_t>(cs.k * cs.n));
      for (int m = 0; m < cs.m; ++m)
        for (int k = 0; k < cs.k; ++k) ad[m * cs.k + k] = a_f[m * lda + k];
      for (int n = 0; n < cs.n; ++n)
        for (int k = 0; k < cs.k; ++k)
          bd[k * cs.n + n] = kLayoutB == LayoutB::kNK ? b_f[n * ldb + k] : b_f[k * ldb + n];
      GemmReference const exact = reference_gemm(ad, bd, cs.m, cs.n, cs.k);
      EpilogueReference const e2e =
          reference_epilogue(exact, cs.bias ? bias_d.data() : nullptr,
                             activation_of<typename Config::Epilogue::Act>(), OutputType::kF32);
      double worst_ratio =
          0;  // max |out - ref| / (K * 2^-24 * sum|ab|): how much of an FP32 bound was used
      for (std::size_t i = 0; i < out.size(); ++i) {
        double const denom = cs.k * kFp32UnitRoundoff * ref.abs_c[i];
        if (denom > 0 && std::isfinite(out[i]))
          worst_ratio = std::max(worst_ratio, std::fabs(out[i] - epi.rounded[i]) / denom);
      }
      std::ostringstream s;
      s.precision(3);
      s << describe(cs) << ": kernel vs FP64(quantized) normwise "
        << normwise_relative_error(out, epi.rounded) << ", max|err|/(K u32 sum|ab|) " << worst_ratio
        << "; end-to-end vs FP64(unquantized) normwise " << normwise_relative_error(out, e2e.y);
      *report = s.str();
    }
    if (!within) return within;
    if (amax >= 0) {  // amax of y before output rounding: within the largest f32-output bound
      std::vector<double> const b32 =
          element_bounds(tolerance(OutputType::kF32), ref, epi, cs.bias ? bias_d.data() : nullptr);
      double const tol = *std::max_element(b32.begin(), b32.end());
      bool const nan_expected =
          std::any_of(epi.y.begin(), epi.y.end(), [](double v) { return std::isnan(v); });
      if (nan_expected ? !std::isnan(amax) : !(std::fabs(amax - epi.amax) <= tol))
        return ::testing::AssertionFailure()
               << "amax " << amax << " vs reference " << epi.amax << " (tol " << tol << ")";
    }
    return ::testing::AssertionSuccess();
  }
};

/// Split-K: problem `c` (split_k > 1) run twice and unsplit once through `run` (run_on_host or
/// run_on_gpu, each run checked against FP64 within its derived bound). The two split runs must
/// agree bit for bit (the partials are reduced in a fixed order), and split vs unsplit per element
/// within the sum of the two runs' bounds (each is within its own bound of the same FP64
/// reference).
template <class Config, class Run>
::testing::AssertionResult split_k_consistent(GemmCase const& c, Run&& run) {
  using ElementC = typename Config::ElementC;
  if (c.split_k < 2)
    return ::testing::AssertionFailure() << "split_k " << c.split_k << " is no split";
  GemmCase one = c;
  one.split_k = 1;
  GemmProblem<Config> const split(c), whole(one);  // the same inputs (same seed)
  std::vector<ElementC> first, second, unsplit;
  std::pair<GemmProblem<Config> const*, std::vector<ElementC>*> const runs[] = {
      {&split, &first}, {&split, &second}, {&whole, &unsplit}};
  for (auto const& [problem, out] : runs) {
    ::testing::AssertionResult const r = run(*problem, nullptr, out);
    if (!r) return ::testing::AssertionFailure() << describe(problem->cs) << ": " << r.message();
  }
  if (std::memcmp(first.data(), second.data(), first.size() * sizeof(ElementC)) != 0)
    return ::testing::AssertionFailure() << "split-K is not deterministic: two runs differ";
  std::vector<double> bound(split.bound.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = split.bound[i] + whole.bound[i];
  return all_within_bound(split.values(first), whole.values(unsplit), bound, c.m, c.n);
}

}  // namespace fp8gemm::test
