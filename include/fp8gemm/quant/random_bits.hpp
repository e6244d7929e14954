// SPDX-License-Identifier: MIT
/// Counter-based random bits for stochastic rounding, identical on host and device (quant layer).
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// splitmix64 finalizer (Steele, Lea, Flood 2014): a bijective 64-bit mix.
/// z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31
FP8GEMM_HOST_DEVICE std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 32 random bits for element `index` of a stream keyed by `seed`; a pure function of (seed,
/// index), so any thread order (host loop, GPU grid) gives the same bits. bits =
/// high32(mix(mix(seed) + (index + 1) * 0x9e3779b97f4a7c15))
FP8GEMM_HOST_DEVICE std::uint32_t random_bits(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t const key = splitmix64_mix(seed);
  std::uint64_t const z = splitmix64_mix(key + (index + 1) * 0x9e3779b97f4a7c15ull);
  return static_cast<std::uint32_t>(z >> 32);
}

}  // namespace fp8gemm
