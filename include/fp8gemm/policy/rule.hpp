// SPDX-License-Identifier: MIT
/// Compile-time rules as values (policy layer): a rule is a bool and the sentence that says why it
/// must hold. The *Rules traits (TilePolicyRules, WgmmaPolicyRules, LdsMultistageRules, ...) hold
/// one per rule, evaluate on any candidate without a compile error (no division by zero, no
/// instantiation of the policy), and the static_asserts of the policies and mainloops test the same
/// values with the same sentence macro. A dispatcher reads kValid and why_not() instead.
#pragma once

namespace fp8gemm {

/// One rule: whether it holds, and its sentence (the static_assert's message).
struct Rule {
  bool ok;
  char const* sentence;
};

/// The sentence of the first rule that fails, nullptr when all hold.
template <int N>
constexpr char const* first_failing(Rule const (&rules)[N]) {
  for (int i = 0; i < N; ++i)
    if (!rules[i].ok) return rules[i].sentence;
  return nullptr;
}

namespace rules {
/// d divides n (false for d <= 0, where n % d would not be a constant expression).
constexpr bool divides(int d, int n) {
  return d > 0 && n % d == 0;
}
/// n / d, 0 for d <= 0.
constexpr int quotient(int n, int d) {
  return d > 0 ? n / d : 0;
}
/// n, at least 1 (for arguments that must not be 0).
constexpr int at_least_one(int n) {
  return n > 0 ? n : 1;
}
}  // namespace rules

}  // namespace fp8gemm
