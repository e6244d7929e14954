// SPDX-License-Identifier: MIT
// The Hopper (mma.sync, wave32) policies' kernel source executed on the host emulator: proves the
// mainloop's indexing, tails, split-K and epilogue without a GPU (the H200 run proves the silicon).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

using Atom44 = arch::Sm89Mma16x8x32<e4m3fn, e4m3fn>;
using Small = TilePolicy<64, 64, 64, 2, 2, Atom44, 3>;  // small tile: more tiles, 3 stages
using SmallK128 = TilePolicy<64, 64, 128, 2, 2, Atom44, 3>;

template <class Config>
class Sm90OnEmulator : public ::testing::Test {};

using Configs =
    ::testing::Types<GemmConfig<Sm90Default<>, PerTensor, LayoutB::kKN,
                                Epilogue<bf16, Identity>>,  // fewer B blocks than threads
                     GemmConfig<Small, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>,
                     GemmConfig<SmallK128, PerChannel, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
                     GemmConfig<TilePolicy<64, 64, 128, 2, 2, arch::Sm89Mma16x8x32<e5m2, e4m3fn>>,
                                Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>,
                     GemmConfig<TilePolicy<64, 64, 128, 2, 2, arch::Sm89Mma16x8x32<e4m3fn, e5m2>>,
                                Mx32, LayoutB::kKN, Epilogue<fp16, Identity>, FastAccumulation>>;

TYPED_TEST_SUITE(Sm90OnEmulator, Configs, ConfigName);

TYPED_TEST(Sm90OnEmulator, MatchesFp64OnRaggedShapes) {
  expect_host_matches_fp64<TypeParam>(
      {GemmCase{1, 1, 1, 11}, GemmCase{17, 33, 65, 12}, GemmCase{130, 70, 300, 13},
       GemmCase{64, 128, 256, 14, Distribution::kRowRanges},
       GemmCase{100, 90, 520, 15, Distribution::kOutliers, false, 3}});
}

TYPED_TEST(Sm90OnEmulator, NanInAPropagatesToItsRow) {
  GemmCase c{40, 20, 100, 21};
  c.nan_at = 7 * 100 + 33;  // row 7
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_host(p));
}

// The host twin of the GPU's GemmSplitK test: split-K deterministic and close to unsplit.
TEST(Sm90OnEmulatorSplitK, DeterministicAndMatchesUnsplit) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase c{130, 150, 1024, 5};
  c.split_k = 4;
  EXPECT_TRUE(split_k_consistent<C32>(c, run_on_host<C32>));
}

// The check fails on one ulp of difference between the split runs, and on an unsplit result moved
// past the two bounds.
TEST(Sm90OnEmulatorSplitK, ConsistencyCheckCanFail) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase c{40, 30, 512, 6};
  c.split_k = 2;
  int runs = 0;
  auto second_run_one_ulp_off = [&runs](GemmProblem<C32> const& p, std::string*,
                                        std::vector<float>* out) {
    ::testing::AssertionResult r = run_on_host(p, nullptr, out);
    if (++runs == 2) (*out)[7] = std::nextafter((*out)[7], INFINITY);
    return r;
  };
  ::testing::AssertionResult const nondeterministic =
      split_k_consistent<C32>(c, second_run_one_ulp_off);
  EXPECT_FALSE(nondeterministic);
  EXPECT_NE(std::string(nondeterministic.message()).find("not deterministic"), std::string::npos);
  auto unsplit_drifted = [](GemmProblem<C32> const& p, std::string*, std::vector<float>* out) {
    ::testing::AssertionResult r = run_on_host(p, nullptr, out);
    if (p.cs.split_k == 1) (*out)[7] += static_cast<float>(10 * p.bound[7]);
    return r;
  };
  ::testing::AssertionResult const drifted = split_k_consistent<C32>(c, unsplit_drifted);
  EXPECT_FALSE(drifted);
  EXPECT_NE(std::string(drifted.message()).find("first failure at (m 0, n 7)"), std::string::npos)
      << drifted.message();
}

/// C = (acc · s_a) · s_b with s_a = s_b = s = 4e19: s² = 1.6e39 is past FP32's 3.4e38 but every C
/// is not (|a|, |b| <= 2^-7, K = 256: |acc| <= 2^-6, |C| <= 2.5e37). Multiplying the scales first
/// would give inf, and 0 · inf = NaN for a K block whose partial sum is 0 (row 0's first block).
/// Values ±2^-7..2^-9 make every product and each K block's sum exact in FP32, so the only errors
/// are the two scale roundings and, K-blocked, the add of the second block:
/// |C − C_fp64| <= γ_3·s²·Σ_k|a_k b_k|, γ_3 = 3u / (1 − 3u), u = 2^-24.
template <class Config>
void check_extreme_scales() {
  using G = Gemm<Config>;
  using Granularity = typename Config::Granularity;
  int const m = 3, n = 5, k = 256;
  float const s = 4e19f;
  std::mt19937 rng(2026);
  auto value = [&rng] { return std::ldexp(rng() % 2 ? 1.0f : -1.0f, -7 - int(rng() % 3)); };
  std::vector<e4m3fn> a(m * k), b(n * k);  // A [M, K], B [N, K] (mk_nk_mn)
  for (int i = 0; i < m * k; ++i)
    a[i] = e4m3fn((i < 128) ? 0.0f : value());  // row 0: first K block zero
  for (auto& x : b) x = e4m3fn(value());
  ScaleShape const sha = scale_shape<Granularity>(Operand::kA, m, k);
  ScaleShape const shb = scale_shape<Granularity>(Operand::kB, n, k);
  std::vector<float> sa(sha.size(), s), sb(shb.size(), s);
  std::vector<float> c(m * n, -12345.0f);
  typename G::Arguments args;
  args.problem.m = m, args.problem.n = n, args.problem.k = k;
  args.a = a.data(), args.lda = k, args.b = b.data(), args.ldb = k;
  args.scale_a = sa.data(), args.scale_a_count = sha.size();
  args.scale_b = sb.data(), args.scale_b_count = shb.size();
  args.epilogue.c = c.data(), args.epilogue.ldc = n;
  ASSERT_TRUE(G::run(args).ok()) << G::run(args).to_string();
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double dot = 0.0, abs_dot = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        double const prod = double(a[i * k + kk].to_float()) * b[j * k + kk].to_float();
        dot += prod, abs_dot += std::fabs(prod);
      }
      double const want = dot * s * s;
      ASSERT_TRUE(std::isfinite(c[i * n + j]))
          << Granularity::kName << " C(" << i << "," << j << ") = " << c[i * n + j];
      double const u = std::ldexp(1.0, -24), gamma3 = 3 * u / (1 - 3 * u);
      EXPECT_LE(std::fabs(c[i * n + j] - want), gamma3 * abs_dot * s * s)
          << Granularity::kName << " C(" << i << "," << j << ")";
    }
}

TEST(Sm90OnEmulatorScales, ProductOfScalesOutsideFp32StillGivesRepresentableResults) {
  check_extreme_scales<GemmConfig<Small, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>>();
  check_extreme_scales<GemmConfig<Small, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>>();
  check_extreme_scales<
      GemmConfig<SmallK128, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<float, Identity>>>();
}

}  // namespace
}  // namespace fp8gemm::test
