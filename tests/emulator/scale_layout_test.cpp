// SPDX-License-Identifier: MIT
// Blockwise A scales K-block-major (Gemm::Arguments::scale_a_ld: K block kb of row m at
// kb * ld + m, torch's column-major (M, K/128)) on the emulator: the same C, bit for bit, as the
// row-major array on every mainloop that runs here (gfx950, gfx942, the portable path), with the
// entries between the rows (ld > M) poisoned with NaN, which any read of them would spread; the
// same for GroupedGemm (contiguous and masked groups). Plus can_implement's refusals, AutoGemm
// passing the layout through, and the quantizer writing it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/gemm_host_run.hpp"
#include "common/grouped_harness.hpp"
#include "common/poison.hpp"
#include "common/scale_layouts.hpp"
#include "fp8gemm/device/auto_gemm.hpp"

namespace fp8gemm::test {
namespace {

using Gfx950Config = GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>, Blockwise<1, 128, 128>, LayoutB::kNK,
                                Epilogue<bf16, Identity>>;
using Gfx942Config = GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Blockwise<1, 128, 128>,
                                LayoutB::kNK, Epilogue<float, GeluTanh>>;
using PortableConfig =
    GemmConfig<Sm90Default<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, Identity>>;

/// An output element's bits (float, bf16): poison and NaN compare as bits too.
std::uint32_t bits_of(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof(u));
  return u;
}
std::uint32_t bits_of(bf16 v) {
  return v.bits;
}

template <class Config>
class ScaleLayout : public ::testing::Test {};
using Configs = ::testing::Types<Gfx950Config, Gfx942Config, PortableConfig>;
TYPED_TEST_SUITE(ScaleLayout, Configs, ConfigName);

TYPED_TEST(ScaleLayout, KBlockMajorGivesTheSameBits) {
  using Config = TypeParam;
  using ElementC = typename Config::ElementC;
  // M past a tile and odd, K with a partial last block (5 K blocks), N past a B scale block
  for (GemmCase const& c : {GemmCase{293, 200, 4 * 128 + 40, 11}, GemmCase{1, 136, 256, 12}}) {
    GemmProblem<Config> const p(c);
    std::vector<ElementC> want;
    ASSERT_TRUE(run_on_host(p, nullptr, &want)) << describe(c);

    ScaleShape const shape = scale_shape<Blockwise<1, 128, 128>>(Operand::kA, c.m, c.k);
    std::int64_t const ld = shape.rows + 3;
    std::vector<float> const sa = k_block_major(p.sa_f, shape.rows, shape.cols, ld);
    std::vector<ElementC> got(p.c_size());
    poison_host(got);
    float amax = -1.0f;
    auto args = p.arguments(p.a_q.data(), p.b_q.data(), sa.data(), p.host_scale_b(),
                            c.bias ? p.bias_f.data() : nullptr, got.data(), &amax);
    args.scale_a_ld = ld;
    args.scale_a_count = (shape.cols - 1) * ld + shape.rows;  // the least the layout reaches
    Status const st = Gemm<Config>::run(args);
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << describe(c) << " at " << i;
  }
}

/// GroupedGemm with A's scales K-block-major over the flattened rows of every group: the same
/// bits as row-major (contiguous groups with one empty and one past a tile; masked groups).
TYPED_TEST(ScaleLayout, GroupedKBlockMajorGivesTheSameBits) {
  using Config = TypeParam;
  using GG = GroupedGemm<Config>;
  using ElementC = typename Config::ElementC;
  GroupedCase contiguous;
  contiguous.n = 200, contiguous.k = 3 * 128 + 40, contiguous.seed = 21;
  contiguous.b_pad_rows = 56;  // groups of B a whole number of 128-row scale blocks apart
  contiguous.rows = {70, 0, 131, 1};
  GroupedCase masked = contiguous;
  masked.mode = GroupMode::kMasked, masked.rows = {5, 0, 40}, masked.m = 40, masked.seed = 22;
  for (GroupedCase const& c : {contiguous, masked}) {
    GroupedProblem<Config> const p(c);
    auto run = [&](float const* sa, std::int64_t ld, std::int64_t count,
                   std::vector<ElementC>& out) {
      out.assign(p.c_size(), ElementC{});
      poison_host(out);
      float amax = -1.0f;  // (no fp8 output here: unused)
      std::vector<int> counts = p.counts();
      auto args = p.arguments(p.a.data(), p.b.data(), sa, p.sb.data(), p.bias.data(), counts.data(),
                              out.data(), &amax, nullptr);
      args.scale_a_ld = ld;
      args.scale_a_count = count;
      std::vector<int> workspace(GG::workspace_size(args) / sizeof(int) + 1, -7);
      args.workspace = workspace.data();
      Status const st = GG::run(args);
      EXPECT_TRUE(st.ok()) << st.to_string();
      return amax;
    };
    std::vector<ElementC> want, got;
    float const amax = run(p.sa.data(), 0, static_cast<std::int64_t>(p.sa.size()), want);
    ASSERT_TRUE(p.check(want, amax)) << describe(c);  // row-major against FP64 per group
    ScaleShape const shape = scale_shape<Blockwise<1, 128, 128>>(Operand::kA, p.rows_a, c.k);
    std::int64_t const ld = shape.rows + 3;
    std::vector<float> const sa = k_block_major(p.sa, shape.rows, shape.cols, ld);
    run(sa.data(), ld, static_cast<std::int64_t>(sa.size()), got);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << describe(c) << " at " << i;
  }
}

TEST(ScaleLayoutChecks, GroupedRefusedInWords) {
  using GG = GroupedGemm<Gfx950Config>;
  GroupedCase c;
  c.n = 128, c.k = 256, c.rows = {10, 20};
  GroupedProblem<Gfx950Config> const p(c);
  std::vector<int> counts = p.counts();
  std::vector<bf16> out(p.c_size());
  std::vector<int> workspace(64);
  auto args = p.arguments(p.a.data(), p.b.data(), p.sa.data(), p.sb.data(), p.bias.data(),
                          counts.data(), out.data(), nullptr, workspace.data());
  ScaleShape const shape = scale_shape<Blockwise<1, 128, 128>>(Operand::kA, p.rows_a, c.k);
  args.scale_a_ld = shape.rows - 1;  // below the rows
  Status st = GG::can_implement(args);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("needs scale_a_ld >="), std::string::npos) << st.message();
  args.scale_a_ld = shape.rows + 2;  // too few values for the layout
  args.scale_a_count = (shape.cols - 1) * args.scale_a_ld + shape.rows - 1;
  st = GG::can_implement(args);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("K-block-major, scale_a_ld"), std::string::npos) << st.message();
  args.scale_a_count += 1;  // exactly the span
  st = GG::can_implement(args);
  EXPECT_TRUE(st.ok()) << st.to_string();
  args.scale_a_count += 100;  // more is fine (a padded tensor)
  EXPECT_TRUE(GG::can_implement(args).ok());
  using Channel = GroupedGemm<
      GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  GroupedProblem<GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK,
                            Epilogue<bf16, Identity>>> const pc(c);
  auto cargs = pc.arguments(pc.a.data(), pc.b.data(), pc.sa.data(), pc.sb.data(), pc.bias.data(),
                            counts.data(), out.data(), nullptr, workspace.data());
  cargs.scale_a_ld = 64;
  st = Channel::can_implement(cargs);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("is for Blockwise scales"), std::string::npos) << st.message();
}

TEST(ScaleLayoutChecks, RefusedInWords) {
  using G = Gemm<Gfx950Config>;
  GemmProblem<Gfx950Config> const p(GemmCase{64, 128, 256, 3});
  std::vector<bf16> c(p.c_size());
  auto args = p.arguments(p.a_q.data(), p.b_q.data(), p.host_scale_a(), p.host_scale_b(), nullptr,
                          c.data(), nullptr);
  ScaleShape const shape = G::scale_shape_a(64, 256);  // 64 rows, 2 K blocks
  args.scale_a_ld = shape.rows - 1;
  Status st = G::can_implement(args);
  EXPECT_EQ(st.code(), StatusCode::kErrorScaleShape);
  EXPECT_NE(st.message().find("scale_a_ld >= its 64 rows"), std::string::npos) << st.to_string();

  args.scale_a_ld = 80;
  args.scale_a_count = 80 + 63;  // one short of (2 - 1) * 80 + 64
  st = G::can_implement(args);
  EXPECT_EQ(st.code(), StatusCode::kErrorScaleShape);
  EXPECT_NE(st.message().find("reach 144 values, scale_a_count is 143"), std::string::npos)
      << st.to_string();
  args.scale_a_count = 144;
  EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();

  // per-channel has no K blocks to lay out
  using PerChannelConfig =
      GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>;
  GemmProblem<PerChannelConfig> const q(GemmCase{64, 128, 256, 4});
  auto qargs = q.arguments(q.a_q.data(), q.b_q.data(), q.host_scale_a(), q.host_scale_b(), nullptr,
                           c.data(), nullptr);
  qargs.scale_a_ld = 64;
  st = Gemm<PerChannelConfig>::can_implement(qargs);
  EXPECT_EQ(st.code(), StatusCode::kErrorScaleShape);
  EXPECT_NE(st.message().find("is for Blockwise scales; per_channel"), std::string::npos)
      << st.to_string();
}

TEST(ScaleLayoutChecks, AutoGemmPassesTheLayoutThrough) {
  using Auto = AutoGemm<selection::Cdna4Target, e4m3fn, e4m3fn, Blockwise<1, 128, 128>,
                        LayoutB::kNK, Epilogue<bf16, Identity>>;
  GemmProblem<Gfx950Config> const p(GemmCase{40, 256, 384, 5});
  std::vector<bf16> want;
  ASSERT_TRUE(run_on_host(p, nullptr, &want));
  ScaleShape const shape = scale_shape<Blockwise<1, 128, 128>>(Operand::kA, 40, 384);
  std::vector<float> const sa = k_block_major(p.sa_f, shape.rows, shape.cols, 44);
  std::vector<bf16> got(p.c_size());
  poison_host(got);
  typename Auto::Arguments a;
  a.problem = {40, 256, 384};
  a.a = p.a_q.data(), a.lda = p.lda, a.b = p.b_q.data(), a.ldb = p.ldb;
  a.scale_a = sa.data(), a.scale_a_count = static_cast<std::int64_t>(sa.size()), a.scale_a_ld = 44;
  a.scale_b = p.host_scale_b();
  a.scale_b_count = scale_shape<Blockwise<1, 128, 128>>(Operand::kB, 256, 384).size();
  a.epilogue.c = got.data(), a.epilogue.ldc = p.ldc, a.epilogue.bias = p.bias_f.data();
  Status const st = Auto::run(a);
  ASSERT_TRUE(st.ok()) << st.to_string();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].bits, want[i].bits) << i;
}

TEST(ScaleLayoutChecks, QuantizerWritesKBlockMajor) {
  constexpr std::int64_t m = 37, k = 3 * 128 + 5, ld = 40;
  std::vector<float> x(static_cast<std::size_t>(m * k));
  std::uint64_t state = 7;
  for (float& v : x) {  // fresh values of mixed magnitude, no zeros
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = std::ldexp(static_cast<float>((state >> 40) % 2001) - 1000.5f, static_cast<int>(state % 9));
  }
  using G = Blockwise<1, 128, 128>;
  ScaleShape const shape = scale_shape<G>(Operand::kA, m, k);
  std::vector<e4m3fn> q_row(x.size()), q_kb(x.size());
  std::vector<float> s_row(static_cast<std::size_t>(shape.size()));
  std::vector<float> s_kb(static_cast<std::size_t>(shape.cols * ld), -7.0f);  // poison
  QuantizeAArgs<e4m3fn> args;
  args.x = x.data(), args.m = m, args.k = k, args.lda = k, args.ldq = k;
  args.q = q_row.data(), args.scales = s_row.data(), args.scale_count = shape.size();
  ASSERT_TRUE((quantize_a_host<e4m3fn, G>(args)).ok());
  args.q = q_kb.data(), args.scales = s_kb.data(), args.scale_ld = ld;
  args.scale_count = (shape.cols - 1) * ld + shape.rows;
  Status const st = quantize_a_host<e4m3fn, G>(args);
  ASSERT_TRUE(st.ok()) << st.to_string();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(q_kb[i].bits, q_row[i].bits) << i;
  for (std::int64_t kb = 0; kb < shape.cols; ++kb)
    for (std::int64_t r = 0; r < ld; ++r) {
      float const got = s_kb[static_cast<std::size_t>(kb * ld + r)];
      if (r < m)
        EXPECT_EQ(got, s_row[static_cast<std::size_t>(r * shape.cols + kb)]) << r << "," << kb;
      else
        EXPECT_EQ(got, -7.0f) << "padding written at " << r << "," << kb;
    }
  args.scale_count -= 1;
  EXPECT_EQ((quantize_a_host<e4m3fn, G>(args)).code(), StatusCode::kErrorScaleShape);
  args.scale_count += 1;
  args.scale_ld = m - 1;
  EXPECT_EQ((quantize_a_host<e4m3fn, G>(args)).code(), StatusCode::kErrorScaleShape);
}

}  // namespace
}  // namespace fp8gemm::test
