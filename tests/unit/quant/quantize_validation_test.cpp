// SPDX-License-Identifier: MIT
/// Every validation check of the host quantizers: the status code and a readable message naming
/// the failed check (the GPU launchers share these checks).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quant_test_util.hpp"

namespace fp8gemm::test {
namespace {

::testing::AssertionResult has_error(Status const& s, StatusCode code, std::string const& text) {
  if (s.ok())
    return ::testing::AssertionFailure()
           << "expected an error containing \"" << text << "\", got success";
  if (s.code() != code) {
    return ::testing::AssertionFailure()
           << "expected code " << to_string(code) << ", got " << s.to_string();
  }
  if (s.message().find(text) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "message \"" << s.message() << "\" lacks \"" << text << "\"";
  }
  return ::testing::AssertionSuccess();
}

/// A valid 300 x 256 A problem to break one field at a time.
struct AProblem {
  std::vector<float> x = std::vector<float>(300 * 256, 1.0f);
  std::vector<e4m3fn> q = std::vector<e4m3fn>(300 * 256);
  std::vector<float> s = std::vector<float>(300 * 2);
  std::vector<e8m0> mx = std::vector<e8m0>(300 * 8);
  QuantizeAArgs<e4m3fn> args() {
    return QuantizeAArgs<e4m3fn>{x.data(), 300, 256, 256, q.data(), 256, s.data(), nullptr, 300};
  }
};

TEST(QuantizeValidation, PerChannelCountMessage) {
  AProblem p;
  auto a = p.args();
  EXPECT_TRUE((quantize_a_host<e4m3fn, PerChannel>(a)).ok());
  a.scale_count = 299;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorScaleShape,
                        "A per_channel scales: expected 300 floats (one per row), got 299"));
}

TEST(QuantizeValidation, ScaleCountsOfEveryGranularity) {
  AProblem p;
  auto a = p.args();
  a.scale_count = 2;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerTensor>(a), StatusCode::kErrorScaleShape,
                        "A per_tensor scales: expected 1 float, got 2"));
  a.scale_count = 599;
  EXPECT_TRUE(has_error(
      (quantize_a_host<e4m3fn, Blockwise<1, 128, 128>>(a)), StatusCode::kErrorScaleShape,
      "A blockwise scales: expected 600 floats (300 x 2 blocks of 1 x 128 over M x K), got 599"));
  a.scales = nullptr;
  a.mx_scales = p.mx.data();
  a.scale_count = 2401;
  EXPECT_TRUE(has_error(
      quantize_a_host<e4m3fn, Mx32>(a), StatusCode::kErrorScaleShape,
      "A mx32 scales: expected 2400 e8m0 (300 x 8 blocks of 1 x 32 over M x K), got 2401"));

  std::vector<float> bx(40 * 256, 1.0f);
  std::vector<e5m2> bq(40 * 256);
  std::vector<float> bs(40);
  QuantizeBArgs<e5m2> b{bx.data(), 40,  256,       256,     LayoutB::kNK,
                        bq.data(), 256, bs.data(), nullptr, 39};
  EXPECT_TRUE(has_error(quantize_b_host<e5m2, PerChannel>(b), StatusCode::kErrorScaleShape,
                        "B per_channel scales: expected 40 floats (one per column of C), got 39"));
  b.scale_count = 3;
  EXPECT_TRUE(has_error(
      (quantize_b_host<e5m2, Blockwise<1, 128, 128>>(b)), StatusCode::kErrorScaleShape,
      "B blockwise scales: expected 2 floats (1 x 2 blocks of 128 x 128 over N x K), got 3"));
  b.scale_count = 2;
  EXPECT_TRUE((quantize_b_host<e5m2, Blockwise<1, 128, 128>>(b)).ok());
}

TEST(QuantizeValidation, WrongScaleTypeForMx32AndFloatGranularities) {
  AProblem p;
  auto a = p.args();
  a.scale_count = 2400;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, Mx32>(a), StatusCode::kErrorInvalidArgument,
                        "A mx32 scales must be e8m0: pass mx_scales, not float scales"));
  a.scales = nullptr;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, Mx32>(a), StatusCode::kErrorNullPointer,
                        "A mx32 scales: mx_scales is null"));
  a.mx_scales = p.mx.data();
  EXPECT_TRUE((quantize_a_host<e4m3fn, Mx32>(a)).ok());
  a.scale_count = 300;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorInvalidArgument,
                        "A per_channel scales must be float: pass scales, not e8m0 mx_scales"));
  ScalesFromAmaxArgs sa{Operand::kA, p.x.data(), 4, p.s.data(), nullptr, {}};
  EXPECT_TRUE(has_error(scales_from_amax_host<e4m3fn, Mx32>(sa), StatusCode::kErrorInvalidArgument,
                        "A mx32 scales must be e8m0"));
  sa.scales = nullptr;
  sa.mx_scales = p.mx.data();
  EXPECT_TRUE(has_error(scales_from_amax_host<e4m3fn, PerTensor>(sa),
                        StatusCode::kErrorInvalidArgument, "A per_tensor scales must be float"));
  EXPECT_TRUE((scales_from_amax_host<e4m3fn, Mx32>(sa)).ok());
  sa.amax = nullptr;
  EXPECT_TRUE(has_error(scales_from_amax_host<e4m3fn, Mx32>(sa), StatusCode::kErrorNullPointer,
                        "A mx32 scales: amax is null"));
  sa.amax = p.x.data();
  sa.count = 0;
  EXPECT_TRUE(has_error(scales_from_amax_host<e4m3fn, Mx32>(sa), StatusCode::kErrorInvalidSize,
                        "A mx32 scales: count must be >= 1 (got 0)"));
}

TEST(QuantizeValidation, NullPointers) {
  AProblem p;
  auto a = p.args();
  a.x = nullptr;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorNullPointer,
                        "A: x is null"));
  a = p.args();
  a.q = nullptr;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorNullPointer,
                        "A: q is null"));
  a = p.args();
  a.scales = nullptr;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorNullPointer,
                        "A per_channel scales: scales is null"));
  std::vector<float> amax(300);
  EXPECT_TRUE(has_error(amax_a_host<PerChannel>(AmaxAArgs{p.x.data(), 300, 256, 256, nullptr, 300}),
                        StatusCode::kErrorNullPointer, "A per_channel amax: amax is null"));
  EXPECT_TRUE(has_error(
      amax_b_host<PerChannel>(AmaxBArgs{nullptr, 300, 256, 256, LayoutB::kNK, amax.data(), 300}),
      StatusCode::kErrorNullPointer, "B: x is null"));
}

TEST(QuantizeValidation, SizesBelowOne) {
  AProblem p;
  auto a = p.args();
  a.m = 0;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerTensor>(a), StatusCode::kErrorInvalidSize,
                        "A: M must be >= 1 (got 0)"));
  a = p.args();
  a.k = -3;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerTensor>(a), StatusCode::kErrorInvalidSize,
                        "A: K must be >= 1 (got -3)"));
  std::vector<e4m3fn> q(16);
  std::vector<float> s(1);
  QuantizeBArgs<e4m3fn> b{p.x.data(), 0, 4, 4, LayoutB::kNK, q.data(), 4, s.data(), nullptr, 1};
  EXPECT_TRUE(has_error(quantize_b_host<e4m3fn, PerTensor>(b), StatusCode::kErrorInvalidSize,
                        "B: N must be >= 1 (got 0)"));
}

TEST(QuantizeValidation, LeadingDimensions) {
  AProblem p;
  auto a = p.args();
  a.lda = 255;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorLeadingDimension,
                        "A: lda must be >= K (lda 255 < 256)"));
  a = p.args();
  a.ldq = 100;
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorLeadingDimension,
                        "A: ldq must be >= K (ldq 100 < 256)"));
  std::vector<e4m3fn> q(64 * 64);
  std::vector<float> s(1);
  // B kNK: ldb >= K; kKN: ldb >= N
  QuantizeBArgs<e4m3fn> b{p.x.data(), 10, 64, 63, LayoutB::kNK, q.data(), 64, s.data(), nullptr, 1};
  EXPECT_TRUE(has_error(quantize_b_host<e4m3fn, PerTensor>(b), StatusCode::kErrorLeadingDimension,
                        "B (mk_nk_mn): ldb must be >= K (ldb 63 < 64)"));
  b.layout = LayoutB::kKN;
  EXPECT_TRUE((quantize_b_host<e4m3fn, PerTensor>(b)).ok()) << "kKN only needs ldb >= N = 10";
  b.ldb = 9;
  EXPECT_TRUE(has_error(quantize_b_host<e4m3fn, PerTensor>(b), StatusCode::kErrorLeadingDimension,
                        "B (mk_kn_mn): ldb must be >= N (ldb 9 < 10)"));
  b.ldb = 10;
  b.ldq = 9;
  EXPECT_TRUE(has_error(quantize_b_host<e4m3fn, PerTensor>(b), StatusCode::kErrorLeadingDimension,
                        "B: ldq must be >= N (ldq 9 < 10)"));
}

TEST(QuantizeValidation, AmaxCountAndRounding) {
  AProblem p;
  std::vector<float> amax(2400);
  EXPECT_TRUE(has_error(
      amax_a_host<Mx32>(AmaxAArgs{p.x.data(), 300, 256, 256, amax.data(), 2399}),
      StatusCode::kErrorScaleShape,
      "A mx32 amax: expected 2400 floats (300 x 8 blocks of 1 x 32 over M x K), got 2399"));
  EXPECT_TRUE(has_error(
      amax_b_host<PerChannel>(AmaxBArgs{p.x.data(), 30, 256, 256, LayoutB::kNK, amax.data(), 31}),
      StatusCode::kErrorScaleShape,
      "B per_channel amax: expected 30 floats (one per column of C), got 31"));
  auto a = p.args();
  a.rounding = static_cast<Rounding>(7);
  EXPECT_TRUE(has_error(quantize_a_host<e4m3fn, PerChannel>(a), StatusCode::kErrorInvalidArgument,
                        "A: rounding must be kNearestEven or kStochastic (got 7)"));
}

}  // namespace
}  // namespace fp8gemm::test
