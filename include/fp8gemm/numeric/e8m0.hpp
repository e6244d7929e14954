// SPDX-License-Identifier: MIT
/// numeric layer: e8m0, the OCP MX block-scale format (value 2^(bits-127), 0xFF = NaN, no sign,
/// no zero), and mx_shared_scale, the OCP MX rule for a block's shared scale.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/numeric/float_codec.hpp"

namespace fp8gemm {

/// OCP E8M0 scale: value 2^(bits - 127) for bits 0..254 (2^-127 .. 2^127), 0xFF = NaN.
struct e8m0 {
  std::uint8_t bits;
  e8m0() = default;
  /// Nearest power of two, ties (x = 1.5 * 2^e) to the even code; saturating: x < 2^-127 and
  /// +-0 -> 2^-127, x > 2^127 and +Inf -> 2^127. Negative x and NaN -> NaN (no sign bit).
  FP8GEMM_HOST_DEVICE explicit e8m0(float x);
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  e8m0(I) = delete;
  FP8GEMM_HOST_DEVICE static constexpr e8m0 from_bits(std::uint8_t b) {
    return e8m0(detail::RawBitsTag{}, b);
  }
  /// 2^e, with e clamped to the representable [-127, 127].
  FP8GEMM_HOST_DEVICE static constexpr e8m0 from_exponent(int e) {
    return from_bits(static_cast<std::uint8_t>((e < -127 ? -127 : e > 127 ? 127 : e) + 127));
  }
  /// log2 of the value (bits - 127); 128 for NaN.
  FP8GEMM_HOST_DEVICE constexpr int exponent() const { return static_cast<int>(bits) - 127; }
  FP8GEMM_HOST_DEVICE constexpr bool is_nan() const { return bits == 0xFF; }
  FP8GEMM_HOST_DEVICE explicit operator float() const;
  FP8GEMM_HOST_DEVICE float to_float() const;

 private:
  FP8GEMM_HOST_DEVICE constexpr e8m0(detail::RawBitsTag, std::uint8_t b) : bits(b) {}
};

template <>
struct FormatTraits<e8m0> {
  using Storage = std::uint8_t;
  static constexpr char const* kName = "e8m0";
  static constexpr int kExponentBits = 8, kMantissaBits = 0, kBias = 127, kMaxExponent = 127;
  static constexpr float kMaxFinite = 0x1p127f;      // code 0xFE
  static constexpr float kMinNormal = 0x1p-127f;     // code 0x00 (a float subnormal)
  static constexpr float kMinSubnormal = 0x1p-127f;  // no subnormals: same as kMinNormal
  static constexpr bool kHasInf = false, kHasNegativeZero = false, kIsFnuz = false;
  static constexpr std::uint32_t kNanBits = 0xFF, kMaxFiniteBits = 0xFE;
  static constexpr bool kCanonicalNan = true;
};

namespace detail {

/// e8m0 code for float bits x: round to nearest power of two (tie 1.5 * 2^e -> even code).
FP8GEMM_HOST_DEVICE constexpr std::uint8_t encode_e8m0_bits(std::uint32_t x, Saturation sat) {
  std::uint32_t const a = x & 0x7FFFFFFFu;
  if (a > kF32Inf || (x != a && a != 0)) return 0xFF;  // NaN, or negative: no representation
  if (a == 0) return 0x00;                             // nearest value to 0 is 2^-127
  if (a == kF32Inf) return sat == Saturation::kSaturate ? 0xFE : 0xFF;
  int const e = floor_log2_abs_bits(a);
  // x vs the midpoint 1.5 * 2^e: normal floats compare the fraction with 0.5; a subnormal
  // a * 2^-149 compares a with 3 * 2^(p-1), p = e + 149 its top bit (p = 0: x = 2^e exactly).
  std::uint32_t const frac = (a >> 23) != 0 ? (a & 0x7FFFFFu) : (a << (23 - (e + 149))) & 0x7FFFFFu;
  int code = e + 127;
  if (frac > 0x400000u || (frac == 0x400000u && (code & 1) != 0)) ++code;
  if (code < 0) return 0x00;  // below 2^-127: 2^-127 is nearest
  if (code > 0xFE) return sat == Saturation::kSaturate ? 0xFE : 0xFF;
  return static_cast<std::uint8_t>(code);
}

/// Float bits of the e8m0 code b (exact; 0x00 is the float subnormal 2^-127).
FP8GEMM_HOST_DEVICE constexpr std::uint32_t decode_e8m0_bits(std::uint8_t b) {
  if (b == 0xFF) return kF32QuietNan;
  if (b == 0x00) return 0x00400000u;
  return static_cast<std::uint32_t>(b) << 23;
}

/// The e8m0 code of the OCP MX shared scale for a block whose max |element| is `amax` bits.
template <int kElementMaxExponent>
FP8GEMM_HOST_DEVICE constexpr std::uint8_t mx_shared_scale_bits(std::uint32_t amax_bits) {
  std::uint32_t const a = amax_bits & 0x7FFFFFFFu;
  if (a >= kF32Inf) return 0xFF;  // NaN or Inf amax: no finite scale -> NaN
  if (a == 0) return 127;         // all-zero block: any scale works; 1.0 keeps it exact
  int e = floor_log2_abs_bits(a) - kElementMaxExponent;
  e = e < -127 ? -127 : (e > 127 ? 127 : e);
  return static_cast<std::uint8_t>(e + 127);
}

}  // namespace detail

FP8GEMM_HOST_DEVICE e8m0::e8m0(float x)
    : bits(detail::encode_e8m0_bits(detail::float_as_bits(x), Saturation::kSaturate)) {}
FP8GEMM_HOST_DEVICE e8m0::operator float() const {
  return detail::bits_as_float(detail::decode_e8m0_bits(bits));
}
FP8GEMM_HOST_DEVICE float e8m0::to_float() const {
  return detail::bits_as_float(detail::decode_e8m0_bits(bits));
}

/// OCP MX shared scale X for a block of T elements with max |element| amax (OCP MX v1.0 §6.3):
///   X = 2^(floor(log2(amax)) - emax_elem), emax_elem = FormatTraits<T>::kMaxExponent
///   (8 e4m3fn, 15 e5m2, 7 e4m3fnuz, 15 e5m2fnuz), clamped to [2^-127, 2^127].
/// The sign of amax is ignored. amax = 0 -> X = 1 (any scale is exact for an all-zero block);
/// NaN or Inf amax -> NaN. Elements are then encoded as float_to_fp8<T>(v / X) (saturating).
template <class T>
FP8GEMM_HOST_DEVICE e8m0 mx_shared_scale(float amax) {
  return e8m0::from_bits(
      detail::mx_shared_scale_bits<FormatTraits<T>::kMaxExponent>(detail::float_as_bits(amax)));
}

static_assert(sizeof(e8m0) == 1 && alignof(e8m0) == 1, "e8m0 must be one byte");
static_assert(std::is_trivial_v<e8m0> && std::is_standard_layout_v<e8m0>, "e8m0 must stay trivial");

}  // namespace fp8gemm
