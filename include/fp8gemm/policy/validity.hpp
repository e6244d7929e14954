// SPDX-License-Identifier: MIT
/// Which policies can run what, as constexpr values (policy layer): the entry points a dispatcher
/// (a future supports<Config>(problem)) calls on any candidate. Each evaluates the rules that the
/// policies' and mainloops' static_asserts test (policy/tile_policy.hpp, policy/wgmma_policy.hpp,
/// mainloop/mainloop_rules.hpp) without instantiating the policy, so an invalid candidate gives
/// false and the first failing rule's sentence, not a compile error. Atom types themselves (a
/// TilePolicy's AtomT, a WGMMA policy's operand types) must be valid; structs derived from
/// WgmmaTilePolicy are read through their members, so they must be valid to be asked.
#pragma once

#include <type_traits>

#include "fp8gemm/mainloop/mainloop_rules.hpp"
#include "fp8gemm/policy/tile_policy.hpp"
#include "fp8gemm/policy/wgmma_policy.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm {

/// IsWgmmaPolicy without instantiating the policy where it is one of the policy templates
/// (std::is_base_of would, and an invalid one's static_asserts would fire).
template <class Policy>
struct IsWgmmaCandidate : IsWgmmaPolicy<Policy> {};
template <int BM, int BN, int BK, int WM, int WN, class A, int S>
struct IsWgmmaCandidate<TilePolicy<BM, BN, BK, WM, WN, A, S>> : std::false_type {};
template <int BM, int BN, int C, int S, class EA, class EB, WgmmaSchedule Sc, WgmmaMulticast Mc>
struct IsWgmmaCandidate<WgmmaTilePolicy<BM, BN, C, S, EA, EB, Sc, Mc>> : std::true_type {};
template <int BNR, int BMC, int C, int S, class EA, class EB, WgmmaMulticast Mc>
struct IsWgmmaCandidate<WgmmaSwapABPolicy<BNR, BMC, C, S, EA, EB, Mc>> : std::true_type {};

/// The shape rules of a policy: TilePolicyRules, WgmmaPolicyRules or WgmmaSwapABPolicyRules.
template <class Policy>
using PolicyRulesOf =
    typename std::conditional_t<IsWgmmaCandidate<Policy>::value, WgmmaPolicyRulesOf<Policy>,
                                TilePolicyRulesOf<Policy>>::type;

/// The policy's own rules hold (its template compiles).
template <class Policy>
constexpr bool policy_is_valid() {
  return PolicyRulesOf<Policy>::kValid;
}
/// The first of the policy's rules that fails, nullptr when policy_is_valid<Policy>().
template <class Policy>
constexpr char const* policy_why_not() {
  return PolicyRulesOf<Policy>::why_not();
}

/// The promotion interval a config runs (GemmConfig::kPromoteK) for an accumulation tag
/// (PromoteEvery<K>, FastAccumulation, AtomDefaultAccumulation: kPromoteK < 0).
template <class Policy, int kTagPromoteK>
constexpr int resolved_promote_k() {
  if constexpr (kTagPromoteK >= 0)
    return kTagPromoteK;
  else if constexpr (IsWgmmaCandidate<Policy>::value)
    return 128;  // Sm90Wgmma64xNx32::kDefaultPromoteK
  else
    return PolicyRulesOf<Policy>::Atom::kDefaultPromoteK;
}

/// The rules of one kernel configuration, policy first: LdsMultistageRules for a portable
/// policy (the rules of the register-staged / cp.async mainloop; the gfx950 direct-to-LDS
/// mainloop's own conditions are BufferLdsPingPongSupports'), TmaWgmmaRules for a WGMMA policy.
/// PromoteK as resolved_promote_k gives it.
template <class Policy, class Granularity, LayoutB kLayoutB, int PromoteK>
using ConfigRulesOf =
    std::conditional_t<IsWgmmaCandidate<Policy>::value,
                       TmaWgmmaRules<Policy, Granularity, PromoteK, kLayoutB>,
                       LdsMultistageRules<Policy, Granularity, kLayoutB, PromoteK>>;

/// Policy x Granularity x LayoutB x accumulation (a tag with kPromoteK, as GemmConfig takes it)
/// passes the policy's and the mainloop's rules.
template <class Policy, class Granularity, LayoutB kLayoutB, class Accumulation>
constexpr bool config_is_valid() {
  return ConfigRulesOf<Policy, Granularity, kLayoutB,
                       resolved_promote_k<Policy, Accumulation::kPromoteK>()>::kValid;
}
/// The first failing rule's sentence of config_is_valid's, nullptr when valid.
template <class Policy, class Granularity, LayoutB kLayoutB, class Accumulation>
constexpr char const* config_why_not() {
  return ConfigRulesOf<Policy, Granularity, kLayoutB,
                       resolved_promote_k<Policy, Accumulation::kPromoteK>()>::why_not();
}

}  // namespace fp8gemm
