// SPDX-License-Identifier: MIT
/// A bit-level model of Hopper's FP8 wgmma accumulation, fitted to and checked against the H200
/// by tests/gpu/wgmma_first_light_gpu_test.cu (test helpers, namespace fp8gemm::test).
///
/// Model (kMeasured), per m64nNk32 k-step and output element, D the FP32 accumulator:
///   1. E = the largest of: e_a + e_b over the step's 32 nonzero products, where e is an fp8
///      operand's exponent (a subnormal counts at its format's smallest normal exponent; so a
///      product's value may reach 2^(E+2)), and floor(log2 |D|) unless scale-d = 0 (the chain's
///      first step, where D does not take part);
///   2. every product and D is cut toward zero to a multiple of 2^(E - 13);
///   3. the cut terms are summed exactly;
///   4. the sum is cut toward zero to 14 significant bits (13 below its own leading bit): new D.
/// Evidence (2026-11-30, H200, driver 580.159.04): crafted powers of two show a term 2^-13 below
/// the largest surviving and 2^-14 below lost -- alone, as one of 31 in the same wgmma (each term
/// is cut, not their sum), in a later k-step, and as D meeting a larger product; on random
/// N(0,1) data (4 format pairs, K = 512 and 1152, 53,248 outputs) this model reproduces every
/// output bit for bit, while dropping step 4 matches 91 %, and taking E from the products'
/// values instead of their operands' exponents (with step 4 dropped) 81 %.
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <vector>

namespace fp8gemm::test {

enum class Sm90AccumulationModel {
  kMeasured,               ///< steps 1-4 above: reproduces the H200
  kWithoutSumCut,          ///< steps 1-3: D = the exact sum of cut terms
  kValueExponentsNoSumCut  ///< steps 2-3 with E = max floor(log2 |term|)
};

inline char const* model_name(Sm90AccumulationModel m) {
  switch (m) {
    case Sm90AccumulationModel::kMeasured:
      return "measured (operand exponents, sum cut to 14 bits)";
    case Sm90AccumulationModel::kWithoutSumCut:
      return "without the sum's cut";
    case Sm90AccumulationModel::kValueExponentsNoSumCut:
      return "value exponents, no sum cut";
  }
  return "?";
}

inline constexpr Sm90AccumulationModel kAllAccumulationModels[] = {
    Sm90AccumulationModel::kMeasured, Sm90AccumulationModel::kWithoutSumCut,
    Sm90AccumulationModel::kValueExponentsNoSumCut};

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
/// order (32 per k-step; the first step starts from scale-d = 0), `fraction_bits` = 13 on the H200.
inline float sm90_wgmma_accumulate(std::vector<Sm90Product> const& products,
                                   Sm90AccumulationModel m = Sm90AccumulationModel::kMeasured,
                                   int fraction_bits = 13) {
  bool const operand_exponents = m != Sm90AccumulationModel::kValueExponentsNoSumCut;
  auto cut = [](double x, double q) { return std::trunc(x / q) * q; };  // x / q exact: q = 2^n
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
    double sum = 0.0;
    if (e != INT_MIN) {  // else every term is zero
      double const q = std::ldexp(1.0, e - fraction_bits);
      sum = have_d ? cut(d, q) : 0.0;
      for (std::size_t j = s; j < end; ++j) sum += cut(products[j].value, q);  // exact
    }
    if (m == Sm90AccumulationModel::kMeasured && sum != 0.0)
      sum = cut(sum, std::ldexp(1.0, std::ilogb(sum) - fraction_bits));
    d = static_cast<double>(static_cast<float>(sum));  // exact: <= 22 significant bits
    have_d = true;
  }
  return static_cast<float>(d);
}

/// A bound on what the kMeasured chain loses, computed along the chain it models: per k-step the
/// terms (the nonzero products and a nonzero D) are each cut by less than q = 2^(E - 13) and the
/// sum by less than 2^(floor(log2 |sum|) - 13), so
///   |sm90_wgmma_accumulate(products) - sum of products| < sum over steps of (terms · q + that),
/// with D the model's own (the hardware's, where the model reproduces it). It grows with |D| along
/// the chain, not with sum |a b|: on random e4m3-like products at K = 16384 it is 0.4-1.3 % of
/// sum |a b| (tests/unit/arch/sm90_primitives_test.cpp), where the a-priori K · 2^-13 · sum |a b|
/// is 2 sum |a b|, vacuous from K = 8192 on.
inline double sm90_wgmma_error_bound(std::vector<Sm90Product> const& products,
                                     int fraction_bits = 13) {
  auto cut = [](double x, double q) { return std::trunc(x / q) * q; };
  double d = 0.0, bound = 0.0;
  for (std::size_t s = 0; s < products.size(); s += 32) {
    std::size_t const end = s + 32 < products.size() ? s + 32 : products.size();
    int e = INT_MIN, terms = 0;
    for (std::size_t j = s; j < end; ++j) {
      if (products[j].value == 0.0) continue;
      e = products[j].exponent > e ? products[j].exponent : e;
      ++terms;
    }
    if (d != 0.0) {
      e = std::ilogb(d) > e ? std::ilogb(d) : e;
      ++terms;
    }
    if (e == INT_MIN) continue;  // every term zero: nothing cut
    double const q = std::ldexp(1.0, e - fraction_bits);
    double sum = cut(d, q);
    for (std::size_t j = s; j < end; ++j) sum += cut(products[j].value, q);
    bound += terms * q;
    if (sum != 0.0) {
      bound += std::ldexp(1.0, std::ilogb(sum) - fraction_bits);
      sum = cut(sum, std::ldexp(1.0, std::ilogb(sum) - fraction_bits));
    }
    d = sum;
  }
  return bound;
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
