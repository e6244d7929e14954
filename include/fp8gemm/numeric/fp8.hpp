// SPDX-License-Identifier: MIT
/// numeric layer: the four FP8 element types (e4m3fn, e5m2 = OCP; e4m3fnuz, e5m2fnuz = gfx942),
/// their FormatTraits, and float <-> fp8 conversions (RNE or stochastic, saturating by default).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/numeric/e8m0.hpp"
#include "fp8gemm/numeric/float_codec.hpp"

namespace fp8gemm {

// Each type below is one byte, trivially copyable, standard layout, with a trivial default
// constructor (usable in __shared__ arrays); `T{}` is +0. Raw codes go through `from_bits`; the
// float constructor rounds to nearest even and saturates. Integer constructors are deleted so a
// raw code cannot silently become a value.
#define FP8GEMM_DEFINE_FP8_TYPE(Name)                                                   \
  struct Name {                                                                         \
    std::uint8_t bits;                                                                  \
    Name() = default;                                                                   \
    FP8GEMM_HOST_DEVICE explicit Name(float x);                                         \
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>                \
    Name(I) = delete;                                                                   \
    FP8GEMM_HOST_DEVICE static constexpr Name from_bits(std::uint8_t b) {               \
      return Name(detail::RawBitsTag{}, b);                                             \
    }                                                                                   \
    FP8GEMM_HOST_DEVICE explicit operator float() const;                                \
    FP8GEMM_HOST_DEVICE float to_float() const;                                         \
                                                                                        \
   private:                                                                             \
    FP8GEMM_HOST_DEVICE constexpr Name(detail::RawBitsTag, std::uint8_t b) : bits(b) {} \
  }

/// OCP E4M3: bias 7, max 448, NaN = S.1111.111, no Inf, has -0.
FP8GEMM_DEFINE_FP8_TYPE(e4m3fn);
/// OCP E5M2: bias 15, max 57344, +-Inf = S.11111.00, NaN = S.11111.{01,10,11}, has -0.
FP8GEMM_DEFINE_FP8_TYPE(e5m2);
/// FNUZ E4M3 (gfx942 "fp8"): bias 8, max 240, single NaN 0x80, no Inf, no -0.
FP8GEMM_DEFINE_FP8_TYPE(e4m3fnuz);
/// FNUZ E5M2 (gfx942 "bf8"): bias 16, max 57344, single NaN 0x80, no Inf, no -0.
FP8GEMM_DEFINE_FP8_TYPE(e5m2fnuz);

#undef FP8GEMM_DEFINE_FP8_TYPE

// FormatTraits fields (the same for every format):
//   kName, kExponentBits, kMantissaBits, kBias; kMaxExponent = floor(log2(kMaxFinite));
//   kMaxFinite, kMinNormal, kMinSubnormal (floats, exact); kHasInf, kHasNegativeZero, kIsFnuz;
//   kNanBits = the NaN code conversions produce; kMaxFiniteBits = magnitude code of kMaxFinite;
//   kCanonicalNan = every NaN input encodes to kNanBits (vs. keeping sign/payload).
template <>
struct FormatTraits<e4m3fn> {
  using Storage = std::uint8_t;
  static constexpr char const* kName = "e4m3fn";
  static constexpr int kExponentBits = 4, kMantissaBits = 3, kBias = 7, kMaxExponent = 8;
  static constexpr float kMaxFinite = 448.0f;  // 1.75 * 2^8, code 0x7E
  static constexpr float kMinNormal = 0x1p-6f;
  static constexpr float kMinSubnormal = 0x1p-9f;
  static constexpr bool kHasInf = false, kHasNegativeZero = true, kIsFnuz = false;
  static constexpr std::uint32_t kNanBits = 0x7F, kMaxFiniteBits = 0x7E;
  static constexpr bool kCanonicalNan = true;
};

template <>
struct FormatTraits<e5m2> {
  using Storage = std::uint8_t;
  static constexpr char const* kName = "e5m2";
  static constexpr int kExponentBits = 5, kMantissaBits = 2, kBias = 15, kMaxExponent = 15;
  static constexpr float kMaxFinite = 57344.0f;  // 1.75 * 2^15, code 0x7B
  static constexpr float kMinNormal = 0x1p-14f;
  static constexpr float kMinSubnormal = 0x1p-16f;
  static constexpr bool kHasInf = true, kHasNegativeZero = true, kIsFnuz = false;
  static constexpr std::uint32_t kNanBits = 0x7F, kMaxFiniteBits = 0x7B;
  static constexpr bool kCanonicalNan = true;
};

template <>
struct FormatTraits<e4m3fnuz> {
  using Storage = std::uint8_t;
  static constexpr char const* kName = "e4m3fnuz";
  static constexpr int kExponentBits = 4, kMantissaBits = 3, kBias = 8, kMaxExponent = 7;
  static constexpr float kMaxFinite = 240.0f;  // 1.875 * 2^7, code 0x7F
  static constexpr float kMinNormal = 0x1p-7f;
  static constexpr float kMinSubnormal = 0x1p-10f;
  static constexpr bool kHasInf = false, kHasNegativeZero = false, kIsFnuz = true;
  static constexpr std::uint32_t kNanBits = 0x80, kMaxFiniteBits = 0x7F;
  static constexpr bool kCanonicalNan = true;
};

template <>
struct FormatTraits<e5m2fnuz> {
  using Storage = std::uint8_t;
  static constexpr char const* kName = "e5m2fnuz";
  static constexpr int kExponentBits = 5, kMantissaBits = 2, kBias = 16, kMaxExponent = 15;
  static constexpr float kMaxFinite = 57344.0f;  // 1.75 * 2^15, code 0x7F
  static constexpr float kMinNormal = 0x1p-15f;
  static constexpr float kMinSubnormal = 0x1p-17f;
  static constexpr bool kHasInf = false, kHasNegativeZero = false, kIsFnuz = true;
  static constexpr std::uint32_t kNanBits = 0x80, kMaxFiniteBits = 0x7F;
  static constexpr bool kCanonicalNan = true;
};

/// True for the four FP8 element formats (the generic encoder's formats).
template <class T>
inline constexpr bool is_fp8_element_v = std::is_same_v<T, e4m3fn> || std::is_same_v<T, e5m2> ||
                                         std::is_same_v<T, e4m3fnuz> || std::is_same_v<T, e5m2fnuz>;

/// True for the five one-byte formats: the four elements and the e8m0 scale.
template <class T>
inline constexpr bool is_fp8_v = is_fp8_element_v<T> || std::is_same_v<T, e8m0>;

/// Rounds x to nearest even in format T (e8m0: nearest power of two, see e8m0.hpp).
/// Saturation: see float_codec.hpp. -0 -> -0 (OCP) or +0 (fnuz); NaN -> FormatTraits<T>::kNanBits.
template <class T>
FP8GEMM_HOST_DEVICE T float_to_fp8(float x, Saturation s = Saturation::kSaturate) {
  static_assert(is_fp8_v<T>, "float_to_fp8<T>: T must be e4m3fn, e5m2, e4m3fnuz, e5m2fnuz or e8m0");
  if constexpr (std::is_same_v<T, e8m0>) {
    return e8m0::from_bits(detail::encode_e8m0_bits(detail::float_as_bits(x), s));
  } else {
    return T::from_bits(static_cast<std::uint8_t>(
        detail::encode_bits<FormatTraits<T>>(detail::float_as_bits(x), s, false, 0u)));
  }
}

/// The exact value of v as a float (NaN -> quiet NaN, Inf -> Inf).
template <class T>
FP8GEMM_HOST_DEVICE float fp8_to_float(T v) {
  static_assert(is_fp8_v<T>, "fp8_to_float<T>: T must be e4m3fn, e5m2, e4m3fnuz, e5m2fnuz or e8m0");
  if constexpr (std::is_same_v<T, e8m0>) {
    return detail::bits_as_float(detail::decode_e8m0_bits(v.bits));
  } else {
    return detail::bits_as_float(detail::decode_bits<FormatTraits<T>>(v.bits));
  }
}

/// Stochastic rounding to one of the two neighbours of x in T (element formats only).
/// random_bits, read as the fraction u = random_bits / 2^32, is added directly below the kept
/// LSB and the sum truncated: rounds away from zero iff frac + u >= 1, where frac is the dropped
/// part of |x| in target ulps truncated to 32 bits, so P(away) = frac to within 2^-32. All 32
/// bits are used, MSB first. Exactly representable x never moves. Overflow/NaN as float_to_fp8.
template <class T>
FP8GEMM_HOST_DEVICE T float_to_fp8_stochastic(float x, std::uint32_t random_bits,
                                              Saturation s = Saturation::kSaturate) {
  static_assert(is_fp8_element_v<T>, "float_to_fp8_stochastic<T>: T must be an FP8 element type");
  return T::from_bits(static_cast<std::uint8_t>(
      detail::encode_bits<FormatTraits<T>>(detail::float_as_bits(x), s, true, random_bits)));
}

// Member definitions (after FormatTraits, which they instantiate).
#define FP8GEMM_DEFINE_FP8_MEMBERS(Name)                                        \
  FP8GEMM_HOST_DEVICE Name::Name(float x) : bits(float_to_fp8<Name>(x).bits) {} \
  FP8GEMM_HOST_DEVICE Name::operator float() const {                            \
    return fp8_to_float(*this);                                                 \
  }                                                                             \
  FP8GEMM_HOST_DEVICE float Name::to_float() const {                            \
    return fp8_to_float(*this);                                                 \
  }

FP8GEMM_DEFINE_FP8_MEMBERS(e4m3fn)
FP8GEMM_DEFINE_FP8_MEMBERS(e5m2)
FP8GEMM_DEFINE_FP8_MEMBERS(e4m3fnuz)
FP8GEMM_DEFINE_FP8_MEMBERS(e5m2fnuz)

#undef FP8GEMM_DEFINE_FP8_MEMBERS

static_assert(sizeof(e4m3fn) == 1 && alignof(e4m3fn) == 1, "e4m3fn must be one byte");
static_assert(sizeof(e5m2) == 1 && alignof(e5m2) == 1, "e5m2 must be one byte");
static_assert(sizeof(e4m3fnuz) == 1 && alignof(e4m3fnuz) == 1, "e4m3fnuz must be one byte");
static_assert(sizeof(e5m2fnuz) == 1 && alignof(e5m2fnuz) == 1, "e5m2fnuz must be one byte");
static_assert(std::is_trivially_copyable_v<e4m3fn> && std::is_trivial_v<e4m3fn> &&
                  std::is_standard_layout_v<e4m3fn>,
              "fp8 types must stay trivial (memcpy-able, usable in __shared__ arrays)");

}  // namespace fp8gemm
