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
/// Which way a negative term is cut (toward zero or toward -inf) and whether D takes part in E are
/// not fixed by the crafted experiment (all positive); the variants below let a GPU test ask the
/// hardware which one reproduces it bit for bit.
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <vector>

namespace fp8gemm::test {

enum class Sm90AccumulationModel {
  kTowardZero,                ///< |term| cut down (sign-magnitude), E over products and D
  kTowardMinusInfinity,       ///< term cut toward -inf (two's complement), E over products and D
  kTowardZeroProductExponent  ///< cut toward zero, E over the products only
};

inline char const* model_name(Sm90AccumulationModel m) {
  switch (m) {
    case Sm90AccumulationModel::kTowardZero: return "toward zero, E over products and D";
    case Sm90AccumulationModel::kTowardMinusInfinity: return "toward -inf, E over products and D";
    case Sm90AccumulationModel::kTowardZeroProductExponent: return "toward zero, E over products";
  }
  return "?";
}

inline constexpr Sm90AccumulationModel kAllAccumulationModels[] = {
    Sm90AccumulationModel::kTowardZero, Sm90AccumulationModel::kTowardMinusInfinity,
    Sm90AccumulationModel::kTowardZeroProductExponent};

/// The FP32 value a chain of wgmma k-steps leaves in D for one output element: `products` are the
/// exact products a_k·b_k in K order (32 per k-step; the first step starts from scale-d = 0),
/// `fraction_bits` = 13 on the H200. The sum of cut terms has at most ~20 significant bits, so
/// the conversion to float is exact for all but subnormal results.
inline float sm90_wgmma_accumulate(std::vector<double> const& products, Sm90AccumulationModel m,
                                   int fraction_bits = 13) {
  double d = 0.0;
  bool have_d = false;
  for (std::size_t s = 0; s < products.size(); s += 32) {
    std::size_t const end = s + 32 < products.size() ? s + 32 : products.size();
    int e_products = INT_MIN;
    for (std::size_t j = s; j < end; ++j) {
      if (products[j] != 0.0 && std::ilogb(products[j]) > e_products) e_products = std::ilogb(products[j]);
    }
    int e_all = e_products;
    if (have_d && d != 0.0 && std::ilogb(d) > e_all) e_all = std::ilogb(d);
    int const e = m == Sm90AccumulationModel::kTowardZeroProductExponent && e_products != INT_MIN
                      ? e_products
                      : e_all;
    if (e == INT_MIN) {  // every term zero
      d = 0.0;
      have_d = true;
      continue;
    }
    double const q = std::ldexp(1.0, e - fraction_bits);
    auto cut = [&](double x) {
      double const n = x / q;  // exact: q is a power of two
      return (m == Sm90AccumulationModel::kTowardMinusInfinity ? std::floor(n) : std::trunc(n)) * q;
    };
    double sum = have_d ? cut(d) : 0.0;
    for (std::size_t j = s; j < end; ++j) sum += cut(products[j]);
    d = static_cast<double>(static_cast<float>(sum));
    have_d = true;
  }
  return static_cast<float>(d);
}

}  // namespace fp8gemm::test
