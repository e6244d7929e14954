// SPDX-License-Identifier: MIT
/// Unit tests for numeric/fp8.hpp and e8m0.hpp: all 256 codes of every format decode to the value
/// computed independently from the bit fields; every non-NaN code round-trips; traits; e8m0/MX.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "fp8_formats.hpp"
#include "fp8_sweep.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm {
namespace {

using test::bits_to_float;
using test::float_to_bits;

/// The reference value of `code`, from the OCP / FNUZ definitions, via std::ldexp:
///   normal:    (-1)^s * (2^M + m) * 2^(e - bias - M);  subnormal (e = 0): (-1)^s * m *
///   2^(1-bias-M) specials:  fnuz 0x80 = NaN; e4m3fn S.1111.111 = NaN; e5m2 S.11111.00 = Inf,
///   S.11111.xx = NaN.
template <class T>
double reference_value(int code) {
  using Traits = FormatTraits<T>;
  int const kM = Traits::kMantissaBits;
  int const kE = Traits::kExponentBits;
  int const s = code >> 7;
  int const e = (code >> kM) & ((1 << kE) - 1);
  int const m = code & ((1 << kM) - 1);
  double const nan = std::numeric_limits<double>::quiet_NaN();
  if (Traits::kIsFnuz && code == 0x80) return nan;
  if (std::is_same_v<T, e4m3fn> && (code & 0x7F) == 0x7F) return nan;
  if (std::is_same_v<T, e5m2> && e == 31) {
    return m != 0 ? nan
                  : (s ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity());
  }
  double const mag = e == 0 ? std::ldexp(m, 1 - Traits::kBias - kM)
                            : std::ldexp((1 << kM) + m, e - Traits::kBias - kM);
  return s ? -mag : mag;
}

template <class T>
class Fp8Format : public ::testing::Test {};

using test::FormatName;
using test::Fp8Formats;
TYPED_TEST_SUITE(Fp8Format, Fp8Formats, FormatName);

TYPED_TEST(Fp8Format, AllCodesDecodeToReference) {
  for (int c = 0; c < 256; ++c) {
    float const got = fp8_to_float(TypeParam::from_bits(static_cast<std::uint8_t>(c)));
    double const want = reference_value<TypeParam>(c);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "code 0x" << std::hex << c;
    } else {
      EXPECT_EQ(static_cast<double>(got), want) << "code 0x" << std::hex << c;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << "code 0x" << std::hex << c;
    }
    float const via_operator =
        static_cast<float>(TypeParam::from_bits(static_cast<std::uint8_t>(c)));
    EXPECT_EQ(float_to_bits(via_operator), float_to_bits(got));
  }
}

TYPED_TEST(Fp8Format, EveryNonNanCodeRoundTrips) {
  int checked = 0;
  for (int c = 0; c < 256; ++c) {
    auto const code = static_cast<std::uint8_t>(c);
    float const v = fp8_to_float(TypeParam::from_bits(code));
    if (std::isnan(v)) {
      // Any NaN encodes to the format's one canonical NaN code.
      EXPECT_EQ(float_to_fp8<TypeParam>(v).bits, FormatTraits<TypeParam>::kNanBits);
      continue;
    }
    // Inf (e5m2 only) round-trips without saturation; saturation maps it to +-max by design.
    if (!std::isinf(v)) {
      EXPECT_EQ(float_to_fp8<TypeParam>(v).bits, code) << "code 0x" << std::hex << c;
    }
    EXPECT_EQ(float_to_fp8<TypeParam>(v, Saturation::kNonSaturating).bits, code)
        << "code 0x" << std::hex << c;
    // The float constructor saturates: e5m2 +-Inf -> +-max (0x7B / 0xFB).
    EXPECT_EQ(TypeParam(v).bits, std::isinf(v) ? (code & 0x80) | 0x7B : code);
    ++checked;
  }
  // Non-NaN codes: fnuz 255, e4m3fn 254, e5m2 250 (6 NaN codes).
  EXPECT_EQ(checked, FormatTraits<TypeParam>::kIsFnuz
                         ? 255
                         : (FormatTraits<TypeParam>::kHasInf ? 250 : 254));
}

TYPED_TEST(Fp8Format, TraitsMatchDecodedCodes) {
  using Traits = FormatTraits<TypeParam>;
  auto dec = [](std::uint32_t c) {
    return fp8_to_float(TypeParam::from_bits(static_cast<std::uint8_t>(c)));
  };
  EXPECT_EQ(dec(Traits::kMaxFiniteBits), Traits::kMaxFinite);
  EXPECT_EQ(dec(1), Traits::kMinSubnormal);
  EXPECT_EQ(dec(1u << Traits::kMantissaBits), Traits::kMinNormal);
  EXPECT_TRUE(std::isnan(dec(Traits::kNanBits)));
  EXPECT_EQ(std::ilogb(Traits::kMaxFinite), Traits::kMaxExponent);
  EXPECT_EQ(Traits::kExponentBits + Traits::kMantissaBits, 7);
  EXPECT_EQ(Traits::kHasNegativeZero, !Traits::kIsFnuz);
  static_assert(is_fp8_v<TypeParam> && is_fp8_element_v<TypeParam>);
  static_assert(sizeof(TypeParam) == 1 && alignof(TypeParam) == 1);
  static_assert(std::is_trivially_copyable_v<TypeParam> && std::is_standard_layout_v<TypeParam>);
  static_assert(!std::is_constructible_v<TypeParam, int>, "raw codes must go through from_bits");
  static_assert(TypeParam::from_bits(0x38).bits == 0x38);
  EXPECT_EQ(TypeParam{}.bits, 0);
}

TYPED_TEST(Fp8Format, ZeroSignAndSpecials) {
  using Traits = FormatTraits<TypeParam>;
  EXPECT_EQ(float_to_fp8<TypeParam>(0.0f).bits, 0x00);
  EXPECT_EQ(float_to_fp8<TypeParam>(-0.0f).bits, Traits::kIsFnuz ? 0x00 : 0x80);  // fnuz: no -0
  EXPECT_EQ(float_to_fp8<TypeParam>(-1e-30f).bits, Traits::kIsFnuz ? 0x00 : 0x80);
  float const inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_fp8<TypeParam>(inf).bits, Traits::kMaxFiniteBits);  // saturates
  EXPECT_EQ(float_to_fp8<TypeParam>(-inf).bits, 0x80u | Traits::kMaxFiniteBits);
  EXPECT_EQ(float_to_fp8<TypeParam>(std::nanf("")).bits, Traits::kNanBits);
  EXPECT_EQ(float_to_fp8<TypeParam>(-std::nanf("")).bits, Traits::kNanBits);
  std::uint32_t const nosat_inf = float_to_fp8<TypeParam>(-inf, Saturation::kNonSaturating).bits;
  if (Traits::kHasInf) {
    EXPECT_EQ(nosat_inf, 0xFCu);
  } else {
    auto const code = static_cast<std::uint8_t>(nosat_inf);
    EXPECT_TRUE(std::isnan(fp8_to_float(TypeParam::from_bits(code))));
  }
}

// The codec is constexpr on bit patterns (the float <-> bits step needs memcpy, so it is not).
static_assert(detail::encode_bits<FormatTraits<e4m3fn>>(0x3F800000u, Saturation::kSaturate, false,
                                                        0u) == 0x38);
static_assert(detail::decode_bits<FormatTraits<e5m2fnuz>>(0x01) == 0x37000000u);  // 2^-17
static_assert(e8m0::from_exponent(3).bits == 130 && e8m0::from_exponent(3).exponent() == 3);

TEST(Fp8Values, KnownEncodings) {
  EXPECT_EQ(float_to_fp8<e4m3fn>(1.0f).bits, 0x38);
  EXPECT_EQ(float_to_fp8<e4m3fnuz>(1.0f).bits, 0x40);
  EXPECT_EQ(float_to_fp8<e5m2>(1.0f).bits, 0x3C);
  EXPECT_EQ(float_to_fp8<e5m2fnuz>(1.0f).bits, 0x40);
  // 464 = 448 + ulp/2: the tie rounds to even (448, mantissa 110) -> not an overflow.
  EXPECT_EQ(float_to_fp8<e4m3fn>(464.0f, Saturation::kNonSaturating).bits, 0x7E);
  EXPECT_EQ(float_to_fp8<e4m3fn>(464.0001f, Saturation::kNonSaturating).bits, 0x7F);
  // 61440 = 57344 + ulp/2: the tie rounds to even (2^16) -> overflow -> Inf.
  EXPECT_EQ(float_to_fp8<e5m2>(61440.0f, Saturation::kNonSaturating).bits, 0x7C);
  EXPECT_EQ(float_to_fp8<e5m2>(61439.996f, Saturation::kNonSaturating).bits, 0x7B);
  EXPECT_EQ(float_to_fp8<e4m3fnuz>(248.0f, Saturation::kNonSaturating).bits, 0x80);
  EXPECT_EQ(float_to_fp8<e4m3fnuz>(247.99998f, Saturation::kNonSaturating).bits, 0x7F);
  EXPECT_EQ(float_to_fp8<e4m3fnuz>(-1e6f).bits, 0xFF);
  // Subnormal ties: 2^-10 is half the e4m3fn min subnormal -> 0; 3*2^-10 -> 2*2^-9 (even).
  EXPECT_EQ(float_to_fp8<e4m3fn>(0x1p-10f).bits, 0x00);
  EXPECT_EQ(float_to_fp8<e4m3fn>(0x1.000002p-10f).bits, 0x01);
  EXPECT_EQ(float_to_fp8<e4m3fn>(0x3p-10f).bits, 0x02);
  // Subnormal -> normal carry: 0.1111b * 2^-6 rounds up to 2^-6 = code 0x08.
  EXPECT_EQ(float_to_fp8<e4m3fn>(0x1.fp-7f).bits, 0x08);
}

TEST(E8m0, AllCodesDecode) {
  for (int c = 0; c < 256; ++c) {
    e8m0 const s = e8m0::from_bits(static_cast<std::uint8_t>(c));
    if (c == 0xFF) {
      EXPECT_TRUE(std::isnan(s.to_float()));
      EXPECT_TRUE(std::isnan(fp8_to_float(s)));
      continue;
    }
    EXPECT_EQ(s.to_float(), std::ldexp(1.0f, c - 127)) << c;
    EXPECT_EQ(static_cast<float>(s), s.to_float());
    EXPECT_EQ(s.exponent(), c - 127);
    EXPECT_EQ(e8m0(s.to_float()).bits, c);  // round trip
    EXPECT_EQ(float_to_fp8<e8m0>(s.to_float()).bits, c);
    EXPECT_EQ(e8m0::from_exponent(c - 127).bits, c);
  }
  static_assert(is_fp8_v<e8m0> && !is_fp8_element_v<e8m0> && sizeof(e8m0) == 1);
  EXPECT_EQ(FormatTraits<e8m0>::kMaxFinite, e8m0::from_bits(0xFE).to_float());
  EXPECT_EQ(FormatTraits<e8m0>::kMinNormal, e8m0::from_bits(0x00).to_float());
}

TEST(E8m0, FromFloatRoundsToNearestPowerOfTwo) {
  EXPECT_EQ(e8m0::from_exponent(-500).bits, 0x00);
  EXPECT_EQ(e8m0::from_exponent(500).bits, 0xFE);
  EXPECT_EQ(e8m0(1.0f).bits, 127);
  EXPECT_EQ(e8m0(1.4999999f).bits, 127);
  EXPECT_EQ(e8m0(1.5000001f).bits, 128);
  EXPECT_EQ(e8m0(1.5f).bits, 128);   // tie: 127 is odd -> 128
  EXPECT_EQ(e8m0(3.0f).bits, 128);   // tie: 128 is even -> stays
  EXPECT_EQ(e8m0(0.0f).bits, 0x00);  // no zero: nearest is 2^-127
  EXPECT_EQ(e8m0(0x1p-149f).bits, 0x00);
  EXPECT_EQ(e8m0(0x1.8p-127f).bits, 0x00);  // float subnormal tie, code 0 even
  EXPECT_EQ(e8m0(0x1.8p-126f).bits, 0x02);  // tie at code 1 (odd) -> 2
  EXPECT_EQ(e8m0(0x1.9p-127f).bits, 0x01);
  EXPECT_EQ(e8m0(-1.0f).bits, 0xFF);
  EXPECT_EQ(e8m0(std::nanf("")).bits, 0xFF);
  EXPECT_EQ(e8m0(std::numeric_limits<float>::infinity()).bits, 0xFE);
  EXPECT_EQ(
      float_to_fp8<e8m0>(std::numeric_limits<float>::infinity(), Saturation::kNonSaturating).bits,
      0xFF);
  EXPECT_EQ(e8m0(0x1.fp127f).bits, 0xFE);
  EXPECT_EQ(float_to_fp8<e8m0>(0x1.fp127f, Saturation::kNonSaturating).bits, 0xFF);
}

TEST(E8m0, MxSharedScaleFollowsOcpRule) {
  EXPECT_EQ(mx_shared_scale<e4m3fn>(448.0f).bits, 127);  // 2^(8-8)
  EXPECT_EQ(mx_shared_scale<e4m3fn>(1.0f).bits, 127 - 8);
  EXPECT_EQ(mx_shared_scale<e4m3fn>(-1.0f).bits, 127 - 8);  // sign ignored
  EXPECT_EQ(mx_shared_scale<e5m2>(1.0f).bits, 127 - 15);
  EXPECT_EQ(mx_shared_scale<e4m3fn>(0.0f).bits, 127);  // all-zero block -> 1
  EXPECT_EQ(mx_shared_scale<e4m3fn>(std::nanf("")).bits, 0xFF);
  EXPECT_EQ(mx_shared_scale<e4m3fn>(std::numeric_limits<float>::infinity()).bits, 0xFF);
  EXPECT_EQ(mx_shared_scale<e4m3fn>(0x1p-140f).bits, 0x00);  // clamped to 2^-127
  EXPECT_EQ(mx_shared_scale<e4m3fn>(0x1.8p-149f * 4).bits, 0x00);
  // Property: with no clamping, amax / X lies in [2^emax, 2^(emax+1)).
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    float const amax = bits_to_float((rng() % (200u << 23)) + (20u << 23));
    for (auto [bits, emax] : {std::pair{mx_shared_scale<e4m3fn>(amax).bits, 8},
                              std::pair{mx_shared_scale<e5m2>(amax).bits, 15},
                              std::pair{mx_shared_scale<e4m3fnuz>(amax).bits, 7}}) {
      float const scaled = amax / e8m0::from_bits(bits).to_float();
      ASSERT_GE(scaled, std::ldexp(1.0f, emax)) << amax;
      ASSERT_LT(scaled, std::ldexp(1.0f, emax + 1)) << amax;
    }
  }
}

}  // namespace
}  // namespace fp8gemm
