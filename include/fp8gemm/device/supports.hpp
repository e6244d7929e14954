// SPDX-License-Identifier: MIT
/// supports<Config>(problem): whether a GemmConfig can run a problem shape, for dispatchers that
/// filter candidates (device layer). A candidate whose compile-time rules fail is refused from its
/// constexpr traits (policy/validity.hpp) and never instantiated, so a candidate list may hold
/// configurations that would not compile.
#pragma once

#include <cstdint>
#include <limits>

#include "fp8gemm/device/gemm.hpp"
#include "fp8gemm/policy/validity.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// A GemmConfig's template arguments, read without instantiating the config.
template <class Config>
struct GemmConfigParts;
template <class P, class G, LayoutB LB, class E, class A>
struct GemmConfigParts<GemmConfig<P, G, LB, E, A>> {
  using Policy = P;
  using Granularity = G;
  using Epilogue = E;
  using Accumulation = A;
  static constexpr LayoutB kLayoutB = LB;
};

/// Whether Config's compile-time rules hold (every static_assert its kernel would test).
template <class Config>
constexpr bool config_compiles() {
  using C = GemmConfigParts<Config>;
  return config_is_valid<typename C::Policy, typename C::Granularity, C::kLayoutB,
                         typename C::Accumulation>();
}

/// Whether Config can run `problem` with split_k splits on dense operands: A [M, K] with lda = K,
/// B [N, K] (ldb = K) or [K, N] (ldb = N), C with ldc = N, every buffer 256-byte aligned, no bias
/// or amax. First its compile-time rules (a failing one is returned in words, and the config is
/// not instantiated), then Gemm<Config>::can_implement on such arguments (host only: no pointer
/// is read, nothing is launched), which includes the device check. A workspace is assumed where
/// the config needs one (split_k > 1, a StreamK<P> policy). A call's own arguments (their
/// pointers, pitches, workspace) are still checked by can_implement when it runs.
/// Pitches of the operands supports<> checks: kDense as described above; kPadded16: lda, ldb and
/// ldc rounded up to a multiple of 16 elements (how callers pad rows that are not 16-byte
/// aligned: AutoGemm asks this, since a call's own pitches are checked when it runs).
enum class OperandPitches { kDense, kPadded16 };

template <class Config>
Status supports(ProblemShape const& problem, int split_k = 1,
                OperandPitches pitches = OperandPitches::kDense) {
  using C = GemmConfigParts<Config>;
  if constexpr (!config_compiles<Config>()) {
    return Status::error(StatusCode::kErrorUnsupported,
                         config_why_not<typename C::Policy, typename C::Granularity, C::kLayoutB,
                                        typename C::Accumulation>());
  } else {
    using G = Gemm<Config>;
    // An address no buffer is read from: only its alignment and non-null-ness are checked.
    auto at = [](auto* typed) {
      using T = std::remove_pointer_t<decltype(typed)>;
      return reinterpret_cast<T*>(std::uintptr_t{1} << 20);
    };
    auto pitch = [pitches](std::int64_t extent) {
      return pitches == OperandPitches::kPadded16 ? (extent + 15) / 16 * 16 : extent;
    };
    typename G::Arguments args;
    args.problem = problem;
    bool const nk = C::kLayoutB == LayoutB::kNK;
    args.a = at(static_cast<typename G::ElementA const*>(nullptr));
    args.lda = pitch(problem.k);
    args.b = at(static_cast<typename G::ElementB const*>(nullptr));
    args.ldb = pitch(nk ? problem.k : problem.n);
    args.scale_a = at(static_cast<typename G::Scale const*>(nullptr));
    args.scale_a_count = G::scale_shape_a(problem.m, problem.k).size();
    args.scale_b = at(static_cast<typename G::Scale const*>(nullptr));
    args.scale_b_count = G::scale_shape_b(problem.n, problem.k).size();
    args.epilogue.c = at(static_cast<typename G::ElementC*>(nullptr));
    args.epilogue.ldc = pitch(problem.n);
    if constexpr (is_output_fp8_v<typename G::ElementC>) args.epilogue.output_scale = 1.0f;
    args.split_k = split_k;
    // split-K's partial sums and stream-K's flags and slots: a workspace (never dereferenced)
    if (split_k > 1 || G::kStreamK) args.workspace = at(static_cast<float*>(nullptr));
    return G::can_implement(args);
  }
}

}  // namespace fp8gemm
