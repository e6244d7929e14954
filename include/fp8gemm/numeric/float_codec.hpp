// SPDX-License-Identifier: MIT
/// numeric layer: the one generic float32 <-> small-float encoder/decoder, parameterised by a
/// format's traits (exponent bits, mantissa bits, bias, Inf/NaN/-0 style). Host + device.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// What a float -> small-float conversion does with values beyond the largest finite value.
///   kSaturate      (default) finite overflow and +-Inf -> +-max finite; NaN -> NaN.
///                  Same as CUDA's __NV_SATFINITE (cvt.rn.satfinite), including +-Inf -> +-max.
///   kNonSaturating a value whose round-to-nearest-even result (with an unbounded exponent) exceeds
///                  max finite -> +-Inf where the format has Inf (e5m2, fp16, bf16), else NaN
///                  (e4m3fn: S.1111.111; fnuz: 0x80). A value that rounds down to max stays max:
///                  IEEE 754 overflow rule, as in CUDA's __NV_NOSAT.
/// fp8 results match CUDA's host cuda_fp8.h bit for bit (e4m3fn, e5m2). HIP's hip_fp8.h (ROCm 6.4
/// host path) differs in four documented ways (tests/unit/numeric/fp8_hip_oracle_test.cpp):
/// it keeps the sign of NaN (-NaN -> 0xFF; we and CUDA give 0x7F); with SATFINITE it maps a NaN to
/// +-max in the fnuz formats (we keep NaN); with NOSAT it overflows all of (max, max + ulp/2]
/// (we round first, as CUDA); and below 2^(emin-40-M) it shifts by >= 64 bits (undefined
/// behaviour) and returns garbage codes (we return +-0).
enum class Saturation { kSaturate, kNonSaturating };

/// Per-format constants; specialised next to each type (fp8.hpp, e8m0.hpp, half.hpp).
template <class T>
struct FormatTraits;

namespace detail {

/// Tag for the private raw-bits constructors (keeps `e4m3fn{0x38}` from meaning 56.0f).
struct RawBitsTag {};

/// float -> its IEEE-754 bit pattern (memcpy: valid on host, nvcc device and clang HIP device).
FP8GEMM_HOST_DEVICE std::uint32_t float_as_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

/// IEEE-754 bit pattern -> float.
FP8GEMM_HOST_DEVICE float bits_as_float(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

inline constexpr std::uint32_t kF32Inf = 0x7F800000u;
inline constexpr std::uint32_t kF32QuietNan = 0x7FC00000u;

/// floor(log2(|x|)) for the bits `a` of a finite nonzero |x| (float subnormals included).
FP8GEMM_HOST_DEVICE constexpr int floor_log2_abs_bits(std::uint32_t a) {
  if ((a >> 23) != 0) return static_cast<int>(a >> 23) - 127;
  int p = 22;  // subnormal: |x| = a * 2^-149, top set bit p
  while (((a >> p) & 1u) == 0) --p;
  return p - 149;
}

/// Encodes float bits `x` into format Traits. Finite values: |x| = sig * 2^exp2 exactly; the
/// target quantum (ulp) is 2^(max(floor(log2|x|), emin) - M). q = sig / 2^(shift) is rounded
///   RNE:        up iff rem > half, or rem == half and q is odd;
///   stochastic: up iff frac32 + random_bits >= 2^32, where frac32 = floor(rem / 2^shift * 2^32),
///               i.e. all 32 random bits are added directly below the kept LSB and the sum is
///               truncated; P(up) = frac32 / 2^32, within 2^-32 of the exact fraction.
/// The magnitude code is then ((max(e, emin) - emin) << M) + q: a carry out of the mantissa (q ==
/// 2^(M+1), or a subnormal q reaching 2^M) moves into the exponent field by itself, so codes are
/// monotone in |value| and "rounded value > max finite" is "code > kMaxFiniteBits".
template <class Traits>
FP8GEMM_HOST_DEVICE constexpr std::uint32_t encode_bits(std::uint32_t x, Saturation sat,
                                                        bool stochastic,
                                                        std::uint32_t random_bits) {
  constexpr int kE = Traits::kExponentBits;
  constexpr int kM = Traits::kMantissaBits;
  constexpr int kEmin = 1 - Traits::kBias;  // exponent of the min normal
  constexpr std::uint32_t kSignBit = 1u << (kE + kM);
  constexpr std::uint32_t kMaxCode = Traits::kMaxFiniteBits;  // magnitude of max finite
  constexpr std::uint32_t kNan = Traits::kNanBits;
  // Floats below 2^-126 use floor(log2) := -127, valid because every format has emin > -127.
  static_assert(kEmin > -127 && kM >= 0 && kM <= 10, "format outside the encoder's range");

  std::uint32_t const sign = (x >> 31) != 0 ? kSignBit : 0u;
  std::uint32_t const a = x & 0x7FFFFFFFu;
  // Overflow result without saturation: Inf if the format has one, else its NaN (fnuz: 0x80,
  // which already has the sign bit set, so sign | kNan is 0x80 for both signs).
  std::uint32_t const overflow_code =
      Traits::kHasInf ? (sign | (((1u << kE) - 1u) << kM)) : (sign | kNan);

  if (a > kF32Inf) {  // NaN
    if constexpr (Traits::kCanonicalNan) {
      return kNan;  // fp8: one canonical NaN (CUDA: 0x7F for e4m3fn and e5m2)
    } else {
      // 16-bit IEEE: keep sign and the top payload bits, force the quiet bit.
      return sign | (((1u << kE) - 1u) << kM) | (1u << (kM - 1)) | ((a & 0x7FFFFFu) >> (23 - kM));
    }
  }
  if (a == kF32Inf) return sat == Saturation::kSaturate ? (sign | kMaxCode) : overflow_code;

  std::uint32_t const biased = a >> 23;
  int const e = biased != 0 ? static_cast<int>(biased) - 127 : -127;          // floor(log2|x|)
  std::uint64_t const sig = biased != 0 ? ((a & 0x7FFFFFu) | 0x800000u) : a;  // |x| = sig*2^exp2
  int const exp2 = biased != 0 ? static_cast<int>(biased) - 150 : -149;
  int const e_eff = e < kEmin ? kEmin : e;  // subnormal targets share the min-normal quantum
  int shift = (e_eff - kM) - exp2;          // >= 23 - kM > 0: bits of sig below the kept LSB
  if (shift > 60) shift = 60;               // sig < 2^24: every result is the same beyond 56

  std::uint64_t q = sig >> shift;
  std::uint64_t const rem = sig & ((std::uint64_t{1} << shift) - 1u);
  if (!stochastic) {
    std::uint64_t const half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1u) != 0)) ++q;
  } else {
    std::uint64_t const frac32 = shift >= 32 ? rem >> (shift - 32) : rem << (32 - shift);
    if (frac32 + random_bits >= (std::uint64_t{1} << 32)) ++q;
  }

  std::uint32_t const mag =
      (static_cast<std::uint32_t>(e_eff - kEmin) << kM) + static_cast<std::uint32_t>(q);
  if (mag > kMaxCode) return sat == Saturation::kSaturate ? (sign | kMaxCode) : overflow_code;
  if (mag == 0) return Traits::kIsFnuz ? 0u : sign;  // fnuz has no -0 (0x80 is its NaN)
  return sign | mag;
}

/// Decodes a code of format Traits to float bits, exactly (every value of every format is a
/// normal float). NaN -> quiet float NaN (sign kept for OCP/IEEE formats); Inf -> float Inf.
template <class Traits>
FP8GEMM_HOST_DEVICE constexpr std::uint32_t decode_bits(std::uint32_t code) {
  constexpr int kE = Traits::kExponentBits;
  constexpr int kM = Traits::kMantissaBits;
  constexpr int kEmin = 1 - Traits::kBias;
  constexpr std::uint32_t kSignBit = 1u << (kE + kM);
  constexpr std::uint32_t kExpMask = (1u << kE) - 1u;
  constexpr std::uint32_t kManMask = (1u << kM) - 1u;

  std::uint32_t const fsign = (code & kSignBit) != 0 ? 0x80000000u : 0u;
  std::uint32_t const mag = code & (kSignBit - 1u);
  std::uint32_t const exp_field = mag >> kM;
  std::uint32_t man = mag & kManMask;

  if constexpr (Traits::kIsFnuz) {
    if (code == Traits::kNanBits) return kF32QuietNan;
  } else if constexpr (Traits::kHasInf) {
    if (exp_field == kExpMask) {
      return man == 0 ? (fsign | kF32Inf) : (fsign | kF32QuietNan | (man << (23 - kM)));
    }
  } else {
    if (mag == (Traits::kNanBits & (kSignBit - 1u))) return fsign | kF32QuietNan;  // S.1111.111
  }
  if (mag == 0) return fsign;  // +-0 (fnuz: only +0 reaches here)

  int e = static_cast<int>(exp_field) - Traits::kBias;  // value = 1.man * 2^e
  if (exp_field == 0) {                                 // subnormal: 0.man * 2^emin, normalise
    e = kEmin;
    while ((man & (1u << kM)) == 0) {
      man <<= 1;
      --e;
    }
    man &= kManMask;
  }
  return fsign | (static_cast<std::uint32_t>(e + 127) << 23) | (man << (23 - kM));
}

}  // namespace detail
}  // namespace fp8gemm
