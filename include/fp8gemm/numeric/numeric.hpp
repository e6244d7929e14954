// SPDX-License-Identifier: MIT
/// numeric layer umbrella: fp8 element types, the e8m0 scale, bf16/fp16 and their conversions.
#pragma once

#include "fp8gemm/numeric/e8m0.hpp"
#include "fp8gemm/numeric/float_codec.hpp"
#include "fp8gemm/numeric/fp8.hpp"
#include "fp8gemm/numeric/half.hpp"
