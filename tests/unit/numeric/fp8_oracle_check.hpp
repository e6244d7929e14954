// SPDX-License-Identifier: MIT
/// Test helper: compares float_to_fp8<T> with an oracle conversion over the sweep, bit for bit,
/// and sorts every disagreement into a named, documented class or "unexplained" (a failure).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fp8_sweep.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

/// Names the documented difference (ours, theirs) falls in, or returns "" if none explains it.
using DifferenceClassifier =
    std::function<std::string(float x, Saturation s, std::uint8_t ours, std::uint8_t theirs)>;

/// Runs the sweep through float_to_fp8<T> and `oracle` in both saturation modes. Fails the test
/// on any unexplained difference (printing up to 16); prints the count of each explained class.
template <class T>
void expect_matches_oracle(std::vector<float> const& inputs,
                           std::function<std::uint8_t(float, Saturation)> const& oracle,
                           DifferenceClassifier const& classify = nullptr) {
  std::map<std::string, long> explained;
  long compared = 0, unexplained = 0;
  for (Saturation s : {Saturation::kSaturate, Saturation::kNonSaturating}) {
    for (float x : inputs) {
      std::uint8_t const ours = float_to_fp8<T>(x, s).bits;
      std::uint8_t const theirs = oracle(x, s);
      ++compared;
      if (ours == theirs) continue;
      std::string const why = classify ? classify(x, s, ours, theirs) : std::string();
      if (!why.empty()) {
        ++explained[why];
        continue;
      }
      if (++unexplained <= 16) {
        ADD_FAILURE() << FormatTraits<T>::kName << " x=" << x << " (0x" << std::hex
                      << float_to_bits(x) << ") sat=" << (s == Saturation::kSaturate) << " ours=0x"
                      << int(ours) << " oracle=0x" << int(theirs) << std::dec;
      }
    }
  }
  std::printf("[ oracle   ] %s: %ld conversions compared, %ld unexplained differences\n",
              FormatTraits<T>::kName, compared, unexplained);
  for (auto const& [why, n] : explained) {
    std::printf("[ oracle   ] %s: %ld documented differences: %s\n", FormatTraits<T>::kName, n,
                why.c_str());
  }
  EXPECT_EQ(unexplained, 0);
}

/// Decodes every code of T with fp8_to_float and with `oracle_half_bits` (an oracle's fp8 -> f16
/// conversion, exact for the formats it decodes) and compares the values (NaN-ness for NaNs).
template <class T>
void expect_decode_matches(
    std::function<std::uint16_t(std::uint8_t code)> const& oracle_half_bits) {
  for (int c = 0; c < 256; ++c) {
    auto const code = static_cast<std::uint8_t>(c);
    std::uint16_t const h = oracle_half_bits(code);
    _Float16 hv;
    std::memcpy(&hv, &h, sizeof(hv));
    float const want = static_cast<float>(hv);
    float const got = fp8_to_float(T::from_bits(code));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << FormatTraits<T>::kName << " code " << c;
    } else {
      EXPECT_EQ(float_to_bits(got), float_to_bits(want)) << FormatTraits<T>::kName << " code " << c;
    }
  }
}

}  // namespace fp8gemm::test
