// SPDX-License-Identifier: MIT
// Downstream smoke test: what a user does with the installed headers in a plain C++ build (the host
// emulator backend): quantize random A and B per channel, run the gfx950 default GEMM, compare with
// FP64 on the dequantized operands, and see a bad argument refused with its reason.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/quant/quantize_host.hpp"

#if !defined(FP8GEMM_BACKEND_HOST)
#error "a plain C++ compile must select the host backend"
#endif

using namespace fp8gemm;

namespace {

using Config =
    GemmConfig<Cdna4Default<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;

int fail(char const* what, Status const& s) {
  std::printf("FAIL %s: %s\n", what, s.to_string().c_str());
  return 1;
}

}  // namespace

int main() {
  int const m = 37, n = 45, k = 300, ld = 304;  // ld: K padded to a multiple of 16
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> a(std::size_t(m) * ld), b(std::size_t(n) * ld);
  for (float& x : a) x = normal(rng);
  for (float& x : b) x = normal(rng);

  std::vector<e4m3fn> aq(a.size()), bq(b.size());
  using G = Gemm<Config>;
  std::vector<G::Scale> sa(G::scale_shape_a(m, k).size()), sb(G::scale_shape_b(n, k).size());
  QuantizeAArgs<e4m3fn> qa;
  qa.x = a.data(), qa.m = m, qa.k = k, qa.lda = ld, qa.q = aq.data(), qa.ldq = ld;
  qa.scales = sa.data(), qa.scale_count = std::int64_t(sa.size());
  if (Status s = quantize_a_host<e4m3fn, PerChannel>(qa); !s.ok()) return fail("quantize A", s);
  QuantizeBArgs<e4m3fn> qb;
  qb.x = b.data(), qb.n = n, qb.k = k, qb.ldb = ld, qb.layout = LayoutB::kNK, qb.q = bq.data(),
  qb.ldq = ld;
  qb.scales = sb.data(), qb.scale_count = std::int64_t(sb.size());
  if (Status s = quantize_b_host<e4m3fn, PerChannel>(qb); !s.ok()) return fail("quantize B", s);

  std::vector<float> c(std::size_t(m) * n, -1e30f);  // poisoned
  G::Arguments args;
  args.problem.m = m, args.problem.n = n, args.problem.k = k;
  args.a = aq.data(), args.lda = ld, args.b = bq.data(), args.ldb = ld;
  args.scale_a = sa.data(), args.scale_a_count = std::int64_t(sa.size());
  args.scale_b = sb.data(), args.scale_b_count = std::int64_t(sb.size());
  args.epilogue.c = c.data(), args.epilogue.ldc = n;
  if (Status s = G::run(args); !s.ok()) return fail("run", s);

  // |C − C_fp64| <= γ_{K+2}(2^-24) · Σ_k |a_k b_k| (dequantized products are exact; FP32 sums of K
  // terms and the two scale multiplies round), γ_n = n·u / (1 − n·u).
  double const u = std::ldexp(1.0, -24), gamma = (k + 2) * u / (1 - (k + 2) * u);
  double worst = 0.0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0.0, abs_sum = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        double const p =
            double(aq[i * ld + kk].to_float()) * sa[i] * bq[j * ld + kk].to_float() * sb[j];
        ref += p, abs_sum += std::fabs(p);
      }
      double const err = std::fabs(c[i * n + j] - ref);
      if (!(err <= gamma * abs_sum)) {
        std::printf("FAIL C(%d,%d) = %.9g, FP64 %.9g, bound %.3g\n", i, j, c[i * n + j], ref,
                    gamma * abs_sum);
        return 1;
      }
      worst = std::fmax(worst, err / (gamma * abs_sum));
    }

  args.lda = 300;  // not a multiple of 16
  Status const refused = G::can_implement(args);
  if (refused.code() != StatusCode::kErrorMisaligned)
    return fail("expected a refusal of lda = 300", refused);
  std::printf(
      "fp8gemm consumer OK: %dx%dx%d on the host emulator, worst error %.3f of the bound; %s\n", m,
      n, k, worst, refused.to_string().c_str());
  return 0;
}
