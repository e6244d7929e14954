// SPDX-License-Identifier: MIT
/// The SM / CU count the selecting GEMMs plan for (device layer): the current device's, asked once
/// per device id.
#pragma once

#include <atomic>

#include "fp8gemm/arch/gpu_runtime.hpp"
#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/config.hpp"

namespace fp8gemm::selection {

/// The current device's multiprocessor count (asked once per device id, then read from a cache),
/// or `fallback` (the target's) where no GPU runtime answers.
inline int device_sm_count(int fallback) {
#if defined(FP8GEMM_HAS_GPU_RUNTIME)
  static std::atomic<int> counts[64] = {};  // per device id, 0: not asked yet
  int device = 0;
  if (arch::current_device(&device) != kGpuSuccess || device < 0 || device >= 64) return fallback;
  int n = counts[device].load(std::memory_order_relaxed);
  if (n > 0) return n;
  if (!arch::multiprocessor_count(&n).ok() || n < 1) return fallback;
  counts[device].store(n, std::memory_order_relaxed);
  return n;
#else
  return fallback;
#endif
}

}  // namespace fp8gemm::selection
