// SPDX-License-Identifier: MIT
/// numeric layer umbrella: fp8 element types, the e8m0 scale, bf16/fp16 and their conversions.
#pragma once

#include <type_traits>

#include "fp8gemm/numeric/e8m0.hpp"
#include "fp8gemm/numeric/float_codec.hpp"
#include "fp8gemm/numeric/fp8.hpp"
#include "fp8gemm/numeric/half.hpp"

namespace fp8gemm {

/// The element's name in messages: "float", or the format's name ("e4m3fn", "bf16", "e8m0", ...).
template <class T>
char const* element_name() {
  if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else {
    return FormatTraits<T>::kName;
  }
}

}  // namespace fp8gemm
