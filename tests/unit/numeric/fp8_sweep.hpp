// SPDX-License-Identifier: MIT
/// Test helper: the float inputs every fp8 oracle test sweeps (all float exponents, dense and
/// random mantissas, every fp8 value and every halfway point of every format, each +-1 float ulp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

inline float bits_to_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

inline std::uint32_t float_to_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

/// Pushes x, the floats one ulp either side of it (same sign), and all of them negated.
inline void push_with_neighbours(std::vector<float>& out, float x) {
  std::uint32_t const u = float_to_bits(x) & 0x7FFFFFFFu;
  for (std::uint32_t v : {u, u + 1u, u == 0 ? 0u : u - 1u}) {
    out.push_back(bits_to_float(v));
    out.push_back(bits_to_float(v | 0x80000000u));
  }
}

/// Every rounding boundary of format T: each finite non-negative value, each midpoint between
/// adjacent values (incl. 0 -> min subnormal, and max -> max + ulp, the overflow boundary, where
/// "max + ulp" is the next value of the same exponent range), each +-1 float ulp, both signs.
template <class T>
void push_boundaries(std::vector<float>& out) {
  using Traits = FormatTraits<T>;
  std::vector<double> values;
  for (int c = 0; c < 256; ++c) {
    float const v = fp8_to_float(T::from_bits(static_cast<std::uint8_t>(c)));
    if (v == v && v >= 0.0f && v <= Traits::kMaxFinite) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  double const top_ulp = values[values.size() - 1] - values[values.size() - 2];
  values.push_back(values.back() + top_ulp);  // the first value past max (480, 61440..)
  values.push_back(values.back() + top_ulp);
  for (std::size_t i = 0; i < values.size(); ++i) {
    push_with_neighbours(out, static_cast<float>(values[i]));
    if (i + 1 < values.size()) {
      push_with_neighbours(out, static_cast<float>(0.5 * (values[i] + values[i + 1])));  // exact
    }
  }
}

/// Every rounding boundary of all four formats (+-1 float ulp, both signs) and float specials.
inline std::vector<float> fp8_boundary_inputs() {
  std::vector<float> out;
  push_boundaries<e4m3fn>(out);
  push_boundaries<e5m2>(out);
  push_boundaries<e4m3fnuz>(out);
  push_boundaries<e5m2fnuz>(out);
  for (std::uint32_t special : {0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA00000u,
                                0x7F7FFFFFu, 0x00000001u, 0x007FFFFFu, 0x00800000u}) {
    out.push_back(bits_to_float(special));
    out.push_back(bits_to_float(special | 0x80000000u));
  }
  return out;
}

/// Every float exponent (all 256 biased exponents, both signs) with dense mantissas: exponents
/// where fp8 values, their rounding and their overflow live (2^-28 .. 2^17) get every 2^8-th
/// mantissa (and the one just below it), the others every 2^12-th; plus 64 random mantissas per
/// exponent. `stride` > 1 keeps every stride-th dense mantissa (for slower per-input checks).
inline std::vector<float> fp8_dense_inputs(std::uint32_t stride = 1) {
  std::vector<float> out;
  std::mt19937 rng(0x5eedf8u);  // fixed seed: reproducible
  for (std::uint32_t sign : {0u, 0x80000000u}) {
    for (std::uint32_t biased = 0; biased < 256; ++biased) {
      bool const near_fp8 = biased >= 127 - 28 && biased <= 127 + 17;
      std::uint32_t const step = (near_fp8 ? (1u << 8) : (1u << 12)) * stride;
      for (std::uint32_t m = 0; m < (1u << 23); m += step) {
        out.push_back(bits_to_float(sign | (biased << 23) | m));
        out.push_back(bits_to_float(sign | (biased << 23) | (m + step - 1u)));
      }
      for (int r = 0; r < 64; ++r) {
        out.push_back(bits_to_float(sign | (biased << 23) | (rng() & 0x7FFFFFu)));
      }
    }
  }
  return out;
}

/// The full oracle sweep (about 3.9M floats): dense inputs plus every boundary.
inline std::vector<float> fp8_sweep_inputs(std::uint32_t dense_stride = 1) {
  std::vector<float> out = fp8_dense_inputs(dense_stride);
  std::vector<float> const boundaries = fp8_boundary_inputs();
  out.insert(out.end(), boundaries.begin(), boundaries.end());
  return out;
}

/// fp8_sweep_inputs(), built once.
inline std::vector<float> const& fp8_sweep() {
  static std::vector<float> const inputs = fp8_sweep_inputs();
  return inputs;
}

}  // namespace fp8gemm::test
