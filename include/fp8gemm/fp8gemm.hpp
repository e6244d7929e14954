// SPDX-License-Identifier: MIT
/// Umbrella header: everything a user needs to instantiate an fp8gemm GEMM.
#pragma once

#include "fp8gemm/config.hpp"
#include "fp8gemm/device/gemm.hpp"
#include "fp8gemm/device/grouped_gemm.hpp"
#include "fp8gemm/device/supports.hpp"
#include "fp8gemm/epilogue/epilogue.hpp"
#include "fp8gemm/kernel/gemm_block.hpp"
#include "fp8gemm/kernel/gemm_config.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/policy/default_policies.hpp"
#include "fp8gemm/policy/validity.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
