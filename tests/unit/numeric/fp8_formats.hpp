// SPDX-License-Identifier: MIT
/// Test helper: the four fp8 element formats as a gtest type list, each test named by its format.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

using Fp8Formats = ::testing::Types<e4m3fn, e5m2, e4m3fnuz, e5m2fnuz>;

/// gtest name of a format typed test: FormatTraits<T>::kName.
struct FormatName {
  template <class T>
  static std::string GetName(int) {
    return FormatTraits<T>::kName;
  }
};

}  // namespace fp8gemm::test
