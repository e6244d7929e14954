// SPDX-License-Identifier: MIT
/// Unit tests for numeric/half.hpp: fp16 vs the compiler's _Float16 conversion, bf16 vs a
/// double-based round-to-nearest-even reference; all codes decode and round-trip; halfway cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "fp8_sweep.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm {
namespace {

using test::bits_to_float;
using test::float_to_bits;

std::uint16_t reference_fp16(float x) {
  _Float16 const h = static_cast<_Float16>(x);  // the compiler's IEEE RNE conversion
  std::uint16_t b;
  std::memcpy(&b, &h, sizeof(b));
  return b;
}

/// bf16 by RNE in double: lo = |x| truncated to bf16, hi = lo + 1 ulp (2^128 past the max, which
/// then encodes as Inf); nearest wins, a tie goes to the even code.
std::uint16_t reference_bf16(float x) {
  std::uint32_t const u = float_to_bits(x);
  std::uint16_t const sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  std::uint32_t const lo_bits = u & 0x7FFF0000u;
  double const a = std::fabs(static_cast<double>(x));
  double const lo = bits_to_float(lo_bits);
  double const hi =
      lo_bits == 0x7F7F0000u ? std::ldexp(1.0, 128) : bits_to_float(lo_bits + 0x10000u);
  std::uint16_t const lo_code = static_cast<std::uint16_t>(lo_bits >> 16);
  bool const up = (a - lo > hi - a) || (a - lo == hi - a && (lo_code & 1u) != 0);
  return static_cast<std::uint16_t>(sign | (lo_code + (up ? 1 : 0)));
}

template <class F>
void for_float_sample(F&& f) {
  // Every 509th float bit pattern (prime stride: all mantissa residues, every exponent, both
  // signs; about 8.4M floats), plus the fp8 sweep (every 4th dense input).
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 509)
    f(bits_to_float(static_cast<std::uint32_t>(u)));
  for (float x : test::fp8_sweep_inputs(/*dense_stride=*/4)) f(x);
}

TEST(Fp16, EncodeMatchesFloat16BitForBit) {
  long mismatches = 0;
  for_float_sample([&](float x) {
    std::uint16_t const ours = float_to_fp16(x).bits, want = reference_fp16(x);
    bool const ok = std::isnan(x) ? ((ours & 0x7C00u) == 0x7C00u && (ours & 0x3FFu) != 0 &&
                                     (ours & 0x8000u) == (want & 0x8000u))
                                  : ours == want;
    if (!ok && ++mismatches <= 16)
      ADD_FAILURE() << x << std::hex << " ours " << ours << " want " << want;
  });
  EXPECT_EQ(mismatches, 0);
}

TEST(Fp16, AllCodesDecodeAndRoundTrip) {
  for (std::uint32_t c = 0; c < 65536; ++c) {
    _Float16 h;
    auto const code = static_cast<std::uint16_t>(c);
    std::memcpy(&h, &code, sizeof(h));
    float const want = static_cast<float>(h);
    float const got = fp16_to_float(fp16::from_bits(code));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << c;
      ASSERT_EQ(float_to_fp16(got).bits, code | 0x0200u) << c;  // quiet, payload kept
      continue;
    }
    ASSERT_EQ(float_to_bits(got), float_to_bits(want)) << c;
    ASSERT_EQ(float_to_fp16(got).bits, code) << c;
    ASSERT_EQ(fp16(got).bits, code) << c;
  }
}

TEST(Fp16, HalfwayCasesRoundToEven) {
  // Every midpoint between adjacent finite fp16 values (both signs), +-1 float ulp.
  for (std::uint32_t c = 0; c < 0x7C00; ++c) {
    double const lo = fp16_to_float(fp16::from_bits(static_cast<std::uint16_t>(c)));
    double const hi =
        c == 0x7BFF ? 65536.0 : fp16_to_float(fp16::from_bits(static_cast<std::uint16_t>(c + 1)));
    float const mid = static_cast<float>(0.5 * (lo + hi));  // exact: 12 significant bits
    std::uint32_t const even = (c & 1u) ? c + 1 : c;
    EXPECT_EQ(float_to_fp16(mid).bits, even) << c;
    EXPECT_EQ(float_to_fp16(-mid).bits, even | 0x8000u) << c;
    EXPECT_EQ(float_to_fp16(bits_to_float(float_to_bits(mid) + 1)).bits, c + 1) << c;
    EXPECT_EQ(float_to_fp16(bits_to_float(float_to_bits(mid) - 1)).bits, c) << c;
  }
  EXPECT_EQ(float_to_fp16(65519.996f).bits, 0x7BFF);
  EXPECT_EQ(float_to_fp16(65520.0f).bits, 0x7C00);  // tie above max -> even -> Inf
  EXPECT_EQ(float_to_fp16(-1e30f).bits, 0xFC00);
  EXPECT_EQ(float_to_fp16(-0.0f).bits, 0x8000);
}

TEST(Bf16, EncodeMatchesDoubleReferenceBitForBit) {
  long mismatches = 0;
  for_float_sample([&](float x) {
    std::uint16_t const ours = float_to_bf16(x).bits;
    if (std::isnan(x)) {
      bool const ok = (ours & 0x7F80u) == 0x7F80u && (ours & 0x40u) != 0 &&
                      (ours >> 15) == (float_to_bits(x) >> 31);
      if (!ok && ++mismatches <= 16)
        ADD_FAILURE() << std::hex << float_to_bits(x) << " -> " << ours;
      return;
    }
    std::uint16_t const want = reference_bf16(x);
    if (ours != want && ++mismatches <= 16) {
      ADD_FAILURE() << x << std::hex << " ours " << ours << " want " << want;
    }
  });
  EXPECT_EQ(mismatches, 0);
}

TEST(Bf16, AllCodesDecodeAndRoundTrip) {
  for (std::uint32_t c = 0; c < 65536; ++c) {
    auto const code = static_cast<std::uint16_t>(c);
    float const got = bf16_to_float(bf16::from_bits(code));
    ASSERT_EQ(float_to_bits(got), c << 16);
    ASSERT_EQ(float_to_bits(static_cast<float>(bf16::from_bits(code))), c << 16);
    bool const is_nan = (c & 0x7F80u) == 0x7F80u && (c & 0x7Fu) != 0;
    ASSERT_EQ(float_to_bf16(got).bits, is_nan ? (code | 0x40u) : code) << c;
  }
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3F808000u)).bits, 0x3F80);  // tie -> even (down)
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3F818000u)).bits, 0x3F82);  // tie -> even (up)
  EXPECT_EQ(float_to_bf16(bits_to_float(0x7F7F8000u)).bits, 0x7F80);  // tie above max -> Inf
  EXPECT_EQ(float_to_bf16(bits_to_float(0x7F7F7FFFu)).bits, 0x7F7F);
  static_assert(FormatTraits<bf16>::kMaxFinite == 0x1.FEp127f);
}

}  // namespace
}  // namespace fp8gemm
