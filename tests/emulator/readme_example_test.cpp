// SPDX-License-Identifier: MIT
// README and docs/reference.md: their four examples (the README's AutoGemm quick start, pinned by
// hand with per-channel scales, the grouped AutoGroupedGemm; reference.md's MX-32), line for line,
// compiled and run on the host emulator against FP64 on the dequantized operands. Edit them
// together.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/quant/quantize_host.hpp"

// The README's lines as the README writes them:
// clang-format off
using namespace fp8gemm;

namespace fp8gemm::test {
namespace {

// ---- README, quick start (declarations) ----
// Target: selection::Sm90Target (H100 / H200), Cdna4Target (MI355X), Cdna3Target (MI300X, e4m3fnuz)
using Auto = AutoGemm<selection::Cdna4Target, e4m3fn, e4m3fn, PerChannel, LayoutB::kNK, Epilogue<bf16>>;

/// The quick start's allocator: host memory on the emulator (a device allocation on a GPU).
std::vector<std::vector<float>> allocations;
void* my_alloc(std::size_t bytes) {
  return allocations.emplace_back((bytes + 3) / 4).data();
}

void readme_auto(int M, int N, int K, e4m3fn const* a, e4m3fn const* b, float const* sa,
                 float const* sb, bf16* c, gpuStream_t stream) {
  // ---- README, quick start (statements) ----
  Auto::Arguments args;
  args.problem = {M, N, K};
  args.a = a; args.lda = K; args.b = b; args.ldb = K;  // A [M, K], B [N, K] (a weight as stored)
  args.scale_a = sa; args.scale_a_count = M;           // PerChannel: one per row of A
  args.scale_b = sb; args.scale_b_count = N;           // and one per row of B
  args.epilogue.c = c; args.epilogue.ldc = N;
  std::size_t const bytes = Auto::workspace_size(args);  // > 0 when splitting K pays (split- or stream-K)
  args.workspace = bytes ? my_alloc(bytes) : nullptr;
  puts(Auto::explain(args).c_str());                   // the choice, its tier and why
  if (Status s = Auto::run(args, stream); !s.ok()) puts(s.to_string().c_str());
}

// ---- README, first example (declarations) ----
// gfx950: 256x256x128 tile on the full-rate 16x16x128 MFMA; per-row x per-column scales; GELU-tanh; bf16 out
using Config = GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using G = Gemm<Config>;
// sa, sb: G::Scale const* (float here; e8m0 for Mx32), G::scale_shape_a(M, K) and G::scale_shape_b(N, K)
// ---- docs/reference.md, MX-32 example (declaration) ----
using MxGemm = Gemm<GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, Mx32, LayoutB::kNK, Epilogue<bf16>>>;
static_assert(std::is_same_v<MxGemm::Scale, e8m0>);

void readme_per_channel(int M, int N, int K, e4m3fn const* a, e4m3fn const* b, G::Scale const* sa,
                        G::Scale const* sb, bf16* c, float const* bias, gpuStream_t stream) {
  // ---- README, first example (statements) ----
  G::Arguments args;
  args.problem = {M, N, K};
  args.a = a; args.lda = K;                      // [M, K], K contiguous (16-byte aligned, lda % 16 == 0)
  args.b = b; args.ldb = K;                      // [N, K] (LayoutB::kNK) or [K, N] (LayoutB::kKN)
  args.scale_a = sa; args.scale_a_count = G::scale_shape_a(M, K).size();  // {M, 1}
  args.scale_b = sb; args.scale_b_count = G::scale_shape_b(N, K).size();  // {N, 1}
  args.epilogue.c = c; args.epilogue.ldc = N; args.epilogue.bias = bias;  // bias optional
  // run() checks can_implement first (both [[nodiscard]]); the Status message names the failed check.
  if (Status s = G::run(args, stream); !s.ok()) puts(s.to_string().c_str());  // stream: gpuStream_t
}

void readme_mx32(int M, int N, int K, e4m3fn const* a, e4m3fn const* b, MxGemm::Scale const* mx_sa,
                 MxGemm::Scale const* mx_sb, bf16* c, gpuStream_t stream) {
  // ---- docs/reference.md, MX-32 example (statements) ----
  ScaleShape const mx_a = MxGemm::scale_shape_a(M, K);  // {M, ceil(K / 32)}, row-major
  ScaleShape const mx_b = MxGemm::scale_shape_b(N, K);  // {N, ceil(K / 32)}
  MxGemm::Arguments mx;
  mx.problem = {M, N, K};
  mx.a = a; mx.lda = K; mx.b = b; mx.ldb = K;
  mx.scale_a = mx_sa; mx.scale_a_count = mx_a.size();
  mx.scale_b = mx_sb; mx.scale_b_count = mx_b.size();
  mx.epilogue.c = c; mx.epilogue.ldc = N;
  if (Status s = MxGemm::run(mx, stream); !s.ok()) puts(s.to_string().c_str());
}

// ---- README, grouped example (declaration) ----
using Moe = AutoGroupedGemm<selection::Cdna4Target, e4m3fn, e4m3fn, PerChannel, Epilogue<bf16>>;

void readme_grouped(int rows, int N, int K, int G, e4m3fn const* a, e4m3fn const* w,
                    int const* offs, float const* sa, float const* sw, bf16* c,
                    gpuStream_t stream) {
  // ---- README, grouped example (statements) ----
  Moe::Arguments moe;
  moe.mode = GroupMode::kContiguous;            // or kMasked ([G, capacity, K]) or kBatched
  moe.problem = {rows, N, K, G};                // rows of A and C, then G experts
  moe.a = a; moe.lda = K;                       // [rows, K]: each expert's tokens after the last's
  moe.b = w; moe.ldb = K;                       // [G, N, K]: the experts' weights
  moe.offs = offs;                              // [G] int32 on the device: inclusive row ends
  moe.scale_a = sa; moe.scale_a_count = rows;   // PerChannel: one per row of A
  moe.scale_b = sw; moe.scale_b_count = G * N;  // and one per row of every expert's weight
  moe.epilogue.c = c; moe.epilogue.ldc = N;
  moe.expected_m = rows / G;                    // a host hint; the counts stay on the device
  moe.workspace = my_alloc(Moe::workspace_size(moe));
  if (Status s = Moe::run(moe, stream); !s.ok()) puts(s.to_string().c_str());
}

// clang-format on

/// Random A [M, K] and B [N, K] quantized with granularity Gr (the scales in Gemm's shapes).
template <class Gr, class Scale>
struct Quantized {
  std::vector<e4m3fn> a, b;
  std::vector<Scale> sa, sb;
  Quantized(int m, int n, int k, ScaleShape shape_a, ScaleShape shape_b)
      : a(std::size_t(m) * k), b(std::size_t(n) * k), sa(shape_a.size()), sb(shape_b.size()) {
    std::mt19937 rng(12);
    std::normal_distribution<float> normal(0.0f, 1.5f);
    std::vector<float> xa(a.size()), xb(b.size());
    for (float& x : xa) x = normal(rng);
    for (float& x : xb) x = normal(rng);
    QuantizeAArgs<e4m3fn> qa;
    qa.x = xa.data(), qa.m = m, qa.k = k, qa.lda = k, qa.q = a.data(), qa.ldq = k;
    QuantizeBArgs<e4m3fn> qb;
    qb.x = xb.data(), qb.n = n, qb.k = k, qb.ldb = k, qb.layout = LayoutB::kNK, qb.q = b.data(),
    qb.ldq = k;
    if constexpr (std::is_same_v<Scale, e8m0>) {
      qa.mx_scales = sa.data(), qb.mx_scales = sb.data();
    } else {
      qa.scales = sa.data(), qb.scales = sb.data();
    }
    qa.scale_count = std::int64_t(sa.size()), qb.scale_count = std::int64_t(sb.size());
    EXPECT_TRUE((quantize_a_host<e4m3fn, Gr>(qa).ok()));
    EXPECT_TRUE((quantize_b_host<e4m3fn, Gr>(qb).ok()));
  }
};

/// |c - y| <= 2^-8 |y| (bf16 rounding) + 2e-5 sum_k |a b| (FP32 sums, GELU's slope below 1.13),
/// with y = act(sum_k a[m][k] s_a(m, k) b[n][k] s_b(n, k) + bias[n]) in FP64.
template <class Q, class ScaleA, class ScaleB, class Act>
void expect_matches_fp64(int m, int n, int k, Q const& q, ScaleA sa, ScaleB sb, float const* bias,
                         Act act, std::vector<bf16> const& c) {
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0, abs_sum = 0;
      for (int kk = 0; kk < k; ++kk) {
        double const p =
            double(q.a[i * k + kk].to_float()) * sa(i, kk) * q.b[j * k + kk].to_float() * sb(j, kk);
        acc += p, abs_sum += std::fabs(p);
      }
      double const y = act(acc + (bias != nullptr ? bias[j] : 0.0));
      double const got = c[i * n + j].to_float();
      if (!(std::fabs(got - y) <= 0x1p-8 * std::fabs(y) + 2e-5 * abs_sum) && ++wrong <= 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", FP64 " << y;
    }
  EXPECT_EQ(wrong, 0);
}

// Every line of the code blocks under the "checked:" marker below, in the README (three) and in
// docs/reference.md (one), appears in this file (leading and trailing blanks aside), so the
// examples above are the documents'.
TEST(ReadmeExample, EveryLineOfTheReadmeExamplesIsHere) {
  auto lines_of = [](std::string const& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      std::size_t const b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
      lines.push_back(b == std::string::npos ? "" : line.substr(b, e - b + 1));
    }
    return lines;
  };
  std::vector<std::string> const here = lines_of(__FILE__);
  auto check = [&](std::string const& path, int expected_blocks) {
    std::vector<std::string> const doc = lines_of(path);
    int blocks = 0, checked = 0;
    for (std::size_t i = 0; i < doc.size(); ++i) {
      if (doc[i] != "<!-- checked: tests/emulator/readme_example_test.cpp -->") continue;
      ASSERT_LT(i + 1, doc.size());
      ASSERT_EQ(doc[i + 1], "```cpp");
      ++blocks;
      for (std::size_t j = i + 2; j < doc.size() && doc[j] != "```"; ++j, ++checked)
        EXPECT_NE(std::find(here.begin(), here.end(), doc[j]), here.end())
            << path << " line not here: " << doc[j];
    }
    EXPECT_EQ(blocks, expected_blocks) << path;
    EXPECT_GT(checked, 5 * expected_blocks) << path;
  };
  check(FP8GEMM_README, 3);
  check(std::string(FP8GEMM_SOURCE_DIR) + "/docs/reference.md", 1);
}

TEST(ReadmeExample, PerChannelGeluBf16) {
  int const M = 40, N = 24, K = 160;
  Quantized<PerChannel, G::Scale> const q(M, N, K, G::scale_shape_a(M, K), G::scale_shape_b(N, K));
  std::vector<float> bias(N);
  for (int j = 0; j < N; ++j) bias[j] = 0.25f * float(j % 7) - 0.75f;
  std::vector<bf16> c(std::size_t(M) * N, bf16::from_bits(0x7FC0));  // NaN until written
  readme_per_channel(M, N, K, q.a.data(), q.b.data(), q.sa.data(), q.sb.data(), c.data(),
                     bias.data(), nullptr);
  expect_matches_fp64(
      M, N, K, q, [&](int i, int) { return double(q.sa[i]); },
      [&](int j, int) { return double(q.sb[j]); }, bias.data(),
      [](double x) {
        return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      },
      c);
}

/// The grouped example: three experts of 5, 0 and 9 rows (one empty), each row against its
/// expert's weight, per-channel scales, bf16 out; every row checked against FP64.
TEST(ReadmeExample, GroupedMixtureOfExperts) {
  int const N = 24, K = 160, G = 3;
  std::vector<int> const offs = {5, 5, 14};
  int const rows = offs.back();
  Quantized<PerChannel, float> const q(rows, G * N, K, {rows, 1}, {G * N, 1});  // B: [G * N, K]
  std::vector<bf16> c(std::size_t(rows) * N, bf16::from_bits(0x7FC0));          // NaN until written
  readme_grouped(rows, N, K, G, q.a.data(), q.b.data(), offs.data(), q.sa.data(), q.sb.data(),
                 c.data(), nullptr);
  // row i of A against its expert e's rows e·N + j of B
  for (int e = 0, first = 0; e < G; first = offs[e], ++e) {
    int const m = offs[e] - first;
    if (m == 0) continue;
    Quantized<PerChannel, float> part = q;
    part.a.assign(q.a.begin() + std::size_t(first) * K, q.a.begin() + std::size_t(offs[e]) * K);
    part.b.assign(q.b.begin() + std::size_t(e) * N * K, q.b.begin() + std::size_t(e + 1) * N * K);
    std::vector<bf16> const ce(c.begin() + std::size_t(first) * N,
                               c.begin() + std::size_t(offs[e]) * N);
    expect_matches_fp64(
        m, N, K, part, [&](int i, int) { return double(q.sa[first + i]); },
        [&](int j, int) { return double(q.sb[e * N + j]); }, nullptr, [](double x) { return x; },
        ce);
  }
}

TEST(ReadmeExample, AutoGemmQuickStart) {
  // the second: 3 tiles of 256 x 128 (cdna4_kblocked) on 256 CUs, so the model splits K when a
  // workspace is given
  for (auto [M, N, K] : {std::tuple{40, 24, 160}, std::tuple{130, 260, 2048}}) {
    Quantized<PerChannel, float> const q(M, N, K, {M, 1}, {N, 1});
    std::vector<bf16> c(std::size_t(M) * N, bf16::from_bits(0x7FC0));  // NaN until written
    readme_auto(M, N, K, q.a.data(), q.b.data(), q.sa.data(), q.sb.data(), c.data(), nullptr);
    expect_matches_fp64(
        M, N, K, q, [&](int i, int) { return double(q.sa[i]); },
        [&](int j, int) { return double(q.sb[j]); }, nullptr, [](double x) { return x; }, c);
  }
  Auto::Arguments split;
  split.problem = {130, 260, 2048};
  split.workspace = &split;                   // given (select() only looks at whether it is)
  EXPECT_GT(Auto::select(split).split_k, 1);  // the choice the quick start's second call ran
  EXPECT_FALSE(allocations.empty());          // and it was given its workspace
}

TEST(ReadmeExample, Mx32Bf16) {
  int const M = 40, N = 24, K = 160;  // 5 MX blocks per row
  Quantized<Mx32, MxGemm::Scale> const q(M, N, K, MxGemm::scale_shape_a(M, K),
                                         MxGemm::scale_shape_b(N, K));
  ASSERT_EQ(q.sa.size(), std::size_t(M) * 5);
  std::vector<bf16> c(std::size_t(M) * N, bf16::from_bits(0x7FC0));
  readme_mx32(M, N, K, q.a.data(), q.b.data(), q.sa.data(), q.sb.data(), c.data(), nullptr);
  expect_matches_fp64(
      M, N, K, q, [&](int i, int kk) { return double(q.sa[i * 5 + kk / 32].to_float()); },
      [&](int j, int kk) { return double(q.sb[j * 5 + kk / 32].to_float()); }, nullptr,
      [](double x) { return x; }, c);
}

}  // namespace
}  // namespace fp8gemm::test
