// SPDX-License-Identifier: MIT
/// Output poisoning: fill an output with a byte pattern before a kernel runs, then check that every
/// element was overwritten (test helpers, namespace fp8gemm::test).
///
/// Default pattern 0xFF: a NaN in f32 (0xFFFFFFFF), bf16 (0xFFFF), f16 (0xFFFF), e4m3fn and e5m2
/// (0xFF) and e8m0. For the fnuz formats 0xFF is the finite −max, so poison_byte<T>() picks 0x80,
/// their only NaN. A result that legitimately equals the pattern (a NaN output) cannot be told
/// apart: check written-ness only where the expected output is finite.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::test {

inline constexpr std::uint8_t kPoisonByte = 0xFF;

/// The byte to fill an array of T with: 0x80 for e4m3fnuz/e5m2fnuz, 0xFF otherwise.
template <class T>
constexpr std::uint8_t poison_byte() {
  if constexpr (std::is_same_v<T, e4m3fnuz> || std::is_same_v<T, e5m2fnuz>) {
    return 0x80;
  } else {
    return kPoisonByte;
  }
}

/// Fills count elements of host memory with poison_byte<T>().
template <class T>
void poison_host(T* p, std::size_t count) {
  std::memset(static_cast<void*>(p), poison_byte<T>(), count * sizeof(T));
}

template <class T>
void poison_host(std::vector<T>& v) {
  poison_host(v.data(), v.size());
}

/// True iff every byte of the element equals poison_byte<T>().
template <class T>
bool is_poison(T const& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned char b : bytes) {
    if (b != poison_byte<T>()) return false;
  }
  return true;
}

/// Number of elements of a rows x cols (leading dimension ld) array still holding the poison.
template <class T>
std::int64_t count_unwritten(T const* p, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  std::int64_t n = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) n += is_poison(p[r * ld + c]) ? 1 : 0;
  }
  return n;
}

/// Fails naming the first (row, col) still holding the poison.
template <class T>
::testing::AssertionResult all_written(T const* p, std::int64_t rows, std::int64_t cols,
                                       std::int64_t ld) {
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      if (is_poison(p[r * ld + c])) {
        return ::testing::AssertionFailure()
               << count_unwritten(p, rows, cols, ld) << " of " << rows * cols
               << " elements never written; first at (row " << r << ", col " << c << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
/// Fills count elements of device memory with poison_byte<T>() (stream-ordered).
template <class T>
gpuError_t poison_device(T* p, std::size_t count, gpuStream_t stream = nullptr) {
#if defined(FP8GEMM_BACKEND_HIP)
  return hipMemsetAsync(static_cast<void*>(p), poison_byte<T>(), count * sizeof(T), stream);
#else
  return cudaMemsetAsync(static_cast<void*>(p), poison_byte<T>(), count * sizeof(T), stream);
#endif
}
#endif

}  // namespace fp8gemm::test
