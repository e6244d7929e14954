// SPDX-License-Identifier: MIT
/// A bit-level model of Hopper's FP8 wgmma accumulation, as measured on the H200 by
/// tests/gpu/wgmma_first_light_gpu_test.cu (test helpers, namespace fp8gemm::test).
///
/// Measured (2026-11-30, crafted powers of two, all four e4m3/e5m2 pairs): a term 2^-13 below the
/// largest one survives, a term 2^-14 below is lost -- alone, or as one of 31 in the same wgmma
/// (so each term is cut before the sum, not the sum after), in a later k-step, and as the
/// accumulator D meeting a larger product. Model, per m64nNk32 k-step and output element:
///   terms = the 32 exact fp8 products (+ D unless scale-d = 0, the chain's first step);
///   E = max floor(log2 |term|); each term cut to a multiple of 2^(E - 13); D = their exact sum.
/// The crafted experiment (powers of two, all positive) does not fix which way a negative term is
/// cut, nor whether E comes from the products' values or from their operands' exponents (equal
/// for powers of two); the variants below let a GPU test ask the hardware which one reproduces
/// random data bit for bit. (2026-11-30: value exponents, cut toward zero, matched 80-88 % of
/// random outputs; the cut toward -inf almost none.)
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <vector>

namespace fp8gemm::test {

enum class Sm90AccumulationModel {
  kTowardZero,  ///< E from the terms' values; |term| cut down (sign-magnitude)
  /// E from the operands' exponents: a product's is e_a + e_b (an fp8 subnormal counts at its
  /// format's smallest normal exponent), although its value may reach 2^(e_a + e_b + 1.8); D's
  /// is its FP32 exponent. |term| cut down.
  kTowardZeroOperandExponents,
  kTowardMinusInfinityOperandExponents,  ///< as above, terms cut toward -inf (two's complement)
};

inline char const* model_name(Sm90AccumulationModel m) {
  switch (m) {
    case Sm90AccumulationModel::kTowardZero: return "value exponents, cut toward zero";
    case Sm90AccumulationModel::kTowardZeroOperandExponents:
      return "operand exponents, cut toward zero";
    case Sm90AccumulationModel::kTowardMinusInfinityOperandExponents:
      return "operand exponents, cut toward -inf";
  }
  return "?";
}

inline constexpr Sm90AccumulationModel kAllAccumulationModels[] = {
    Sm90AccumulationModel::kTowardZero, Sm90AccumulationModel::kTowardZeroOperandExponents,
    Sm90AccumulationModel::kTowardMinusInfinityOperandExponents};

/// Exponent of an fp8 operand value for the alignment: floor(log2 |v|), at least the format's
/// smallest normal exponent (-6 for e4m3fn, -14 for e5m2); INT_MIN for zero.
inline int fp8_operand_exponent(double v, int min_normal_exponent) {
  if (v == 0.0) return INT_MIN;
  int const e = std::ilogb(v);
  return e > min_normal_exponent ? e : min_normal_exponent;
}

/// One exact product a_k·b_k with its operand exponent sum e_a + e_b (INT_MIN if it is zero).
struct Sm90Product {
  double value = 0.0;
  int exponent = INT_MIN;
};

/// The FP32 value a chain of wgmma k-steps leaves in D for one output element: `products` in K
/// order (32 per k-step; the first step starts from scale-d = 0), `fraction_bits` = 13 on the
/// H200. The sum of cut terms has at most ~21 significant bits, so the conversion to float is
/// exact for all but subnormal results.
inline float sm90_wgmma_accumulate(std::vector<Sm90Product> const& products,
                                   Sm90AccumulationModel m, int fraction_bits = 13) {
  bool const operand_exponents = m != Sm90AccumulationModel::kTowardZero;
  double d = 0.0;
  bool have_d = false;
  for (std::size_t s = 0; s < products.size(); s += 32) {
    std::size_t const end = s + 32 < products.size() ? s + 32 : products.size();
    int e = INT_MIN;
    for (std::size_t j = s; j < end; ++j) {
      double const v = products[j].value;
      if (v == 0.0) continue;
      int const ej = operand_exponents ? products[j].exponent : std::ilogb(v);
      e = ej > e ? ej : e;
    }
    if (have_d && d != 0.0 && std::ilogb(d) > e) e = std::ilogb(d);
    if (e == INT_MIN) {  // every term zero
      d = 0.0;
      have_d = true;
      continue;
    }
    double const q = std::ldexp(1.0, e - fraction_bits);
    auto cut = [&](double x) {
      double const n = x / q;  // exact: q is a power of two
      return (m == Sm90AccumulationModel::kTowardMinusInfinityOperandExponents ? std::floor(n)
                                                                              : std::trunc(n)) *
             q;
    };
    double sum = have_d ? cut(d) : 0.0;
    for (std::size_t j = s; j < end; ++j) sum += cut(products[j].value);
    d = static_cast<double>(static_cast<float>(sum));
    have_d = true;
  }
  return static_cast<float>(d);
}

/// Products of powers of two or of values whose exponents are their own (tests that craft them).
inline std::vector<Sm90Product> products_with_value_exponents(std::vector<double> const& p) {
  std::vector<Sm90Product> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    out[i].value = p[i];
    out[i].exponent = p[i] != 0.0 ? std::ilogb(p[i]) : INT_MIN;
  }
  return out;
}

}  // namespace fp8gemm::test
