// SPDX-License-Identifier: MIT
/// numeric layer: the 16-bit GEMM output types bf16 and fp16 (IEEE binary16) and their
/// float conversions: round to nearest even, overflow -> Inf, NaN kept (quiet, sign kept).
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/numeric/float_codec.hpp"

namespace fp8gemm {

// Same shape as the fp8 types: trivial, two bytes, raw codes via from_bits, float ctor = RNE.
#define FP8GEMM_DEFINE_HALF_TYPE(Name)                                                   \
  struct Name {                                                                          \
    std::uint16_t bits;                                                                  \
    Name() = default;                                                                    \
    FP8GEMM_HOST_DEVICE explicit Name(float x);                                          \
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>                 \
    Name(I) = delete;                                                                    \
    FP8GEMM_HOST_DEVICE static constexpr Name from_bits(std::uint16_t b) {               \
      return Name(detail::RawBitsTag{}, b);                                              \
    }                                                                                    \
    FP8GEMM_HOST_DEVICE explicit operator float() const;                                 \
    FP8GEMM_HOST_DEVICE float to_float() const;                                          \
                                                                                         \
   private:                                                                              \
    FP8GEMM_HOST_DEVICE constexpr Name(detail::RawBitsTag, std::uint16_t b) : bits(b) {} \
  }

/// bfloat16: float32's top 16 bits (8 exponent bits, 7 mantissa bits, bias 127).
FP8GEMM_DEFINE_HALF_TYPE(bf16);
/// IEEE 754 binary16: 5 exponent bits, 10 mantissa bits, bias 15, max 65504.
FP8GEMM_DEFINE_HALF_TYPE(fp16);

#undef FP8GEMM_DEFINE_HALF_TYPE

template <>
struct FormatTraits<bf16> {
  using Storage = std::uint16_t;
  static constexpr char const* kName = "bf16";
  static constexpr int kExponentBits = 8, kMantissaBits = 7, kBias = 127, kMaxExponent = 127;
  static constexpr float kMaxFinite = 0x1.FEp127f;  // code 0x7F7F
  static constexpr float kMinNormal = 0x1p-126f;
  static constexpr float kMinSubnormal = 0x1p-133f;
  static constexpr bool kHasInf = true, kHasNegativeZero = true, kIsFnuz = false;
  static constexpr std::uint32_t kNanBits = 0x7FC0, kMaxFiniteBits = 0x7F7F;
  static constexpr bool kCanonicalNan = false;  // NaN keeps sign and top payload bits
};

template <>
struct FormatTraits<fp16> {
  using Storage = std::uint16_t;
  static constexpr char const* kName = "fp16";
  static constexpr int kExponentBits = 5, kMantissaBits = 10, kBias = 15, kMaxExponent = 15;
  static constexpr float kMaxFinite = 65504.0f;  // code 0x7BFF
  static constexpr float kMinNormal = 0x1p-14f;
  static constexpr float kMinSubnormal = 0x1p-24f;
  static constexpr bool kHasInf = true, kHasNegativeZero = true, kIsFnuz = false;
  static constexpr std::uint32_t kNanBits = 0x7E00, kMaxFiniteBits = 0x7BFF;
  static constexpr bool kCanonicalNan = false;  // NaN keeps sign and top payload bits
};

/// float -> bf16, RNE: bits = (x + 0x7FFF + lsb) >> 16 (a carry rounds into the exponent, and
/// past the largest finite value into Inf, as IEEE). NaN -> sign | quiet NaN | top payload bits.
FP8GEMM_HOST_DEVICE bf16 float_to_bf16(float x) {
  std::uint32_t const u = detail::float_as_bits(x);
  if ((u & 0x7FFFFFFFu) > detail::kF32Inf) {
    return bf16::from_bits(static_cast<std::uint16_t>((u >> 16) | 0x0040u));
  }
  std::uint32_t const lsb = (u >> 16) & 1u;
  return bf16::from_bits(static_cast<std::uint16_t>((u + 0x7FFFu + lsb) >> 16));
}

/// bf16 -> float, exact: the bits are float32's top half.
FP8GEMM_HOST_DEVICE float bf16_to_float(bf16 v) {
  return detail::bits_as_float(static_cast<std::uint32_t>(v.bits) << 16);
}

/// float -> fp16, RNE, non-saturating: |x| rounding above 65504 -> Inf (x >= 65520 -> Inf).
FP8GEMM_HOST_DEVICE fp16 float_to_fp16(float x) {
  return fp16::from_bits(static_cast<std::uint16_t>(detail::encode_bits<FormatTraits<fp16>>(
      detail::float_as_bits(x), Saturation::kNonSaturating, false, 0u)));
}

/// fp16 -> float, exact.
FP8GEMM_HOST_DEVICE float fp16_to_float(fp16 v) {
  return detail::bits_as_float(detail::decode_bits<FormatTraits<fp16>>(v.bits));
}

FP8GEMM_HOST_DEVICE bf16::bf16(float x) : bits(float_to_bf16(x).bits) {}
FP8GEMM_HOST_DEVICE bf16::operator float() const {
  return bf16_to_float(*this);
}
FP8GEMM_HOST_DEVICE float bf16::to_float() const {
  return bf16_to_float(*this);
}
FP8GEMM_HOST_DEVICE fp16::fp16(float x) : bits(float_to_fp16(x).bits) {}
FP8GEMM_HOST_DEVICE fp16::operator float() const {
  return fp16_to_float(*this);
}
FP8GEMM_HOST_DEVICE float fp16::to_float() const {
  return fp16_to_float(*this);
}

static_assert(sizeof(bf16) == 2 && alignof(bf16) == 2 && std::is_trivial_v<bf16>, "bf16 layout");
static_assert(sizeof(fp16) == 2 && alignof(fp16) == 2 && std::is_trivial_v<fp16>, "fp16 layout");

}  // namespace fp8gemm
