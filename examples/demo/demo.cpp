// SPDX-License-Identifier: MIT
// The fp8gemm demo: quantize random matrices (per-channel e4m3), run an FP8 GEMM with a fused
// dequant + GELU-tanh epilogue to bf16, compare against FP64, print the error and the time. Built
// as CUDA it runs on the GPU (the Hopper policy); built for the host it runs the gfx950 kernel on
// the CDNA host emulator, and says which.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/generators.hpp"
#include "common/reference_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/quant/quantize_host.hpp"
#if defined(FP8GEMM_BACKEND_CUDA)
#include <cuda_runtime.h>
#endif

using namespace fp8gemm;

#if defined(FP8GEMM_BACKEND_CUDA)
using Policy = Sm90Default<e4m3fn, e4m3fn>;
constexpr char const* kBackend = "GPU (CUDA, mma.sync policy)";
#else
using Policy = Cdna4Default<e4m3fn, e4m3fn>;
constexpr char const* kBackend = "host emulator of the gfx950 kernel (no GPU used)";
#endif
using Config = GemmConfig<Policy, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;

#define DEMO_CHECK(cond, what)                    \
  do {                                            \
    if (!(cond)) {                                \
      std::fprintf(stderr, "demo: %s\n", (what)); \
      return 1;                                   \
    }                                             \
  } while (0)

int main(int argc, char** argv) {
  int const m = argc > 1 ? std::atoi(argv[1]) : 512;
  int const n = argc > 2 ? std::atoi(argv[2]) : 512;
  int const k = argc > 3 ? std::atoi(argv[3]) : 1024;
  std::int64_t const ld = (k + 15) / 16 * 16;
  std::printf("fp8gemm demo: C[%d x %d] = gelu_tanh(s_a[m] s_b[n] (A_q B_q^T)) in bf16, K = %d\n",
              m, n, k);
  std::printf("backend: %s\n", kBackend);

  // 1. Random inputs, quantized per row of A / per column of C: s = amax / 448, q = fp8(x / s).
  std::vector<float> a = test::random_matrix(m, k, ld, test::Distribution::kNormal, 1);
  std::vector<float> b = test::random_matrix(n, k, ld, test::Distribution::kNormal, 2);
  std::vector<e4m3fn> aq(std::size_t(m) * ld), bq(std::size_t(n) * ld);
  std::vector<float> sa(m), sb(n);
  QuantizeAArgs<e4m3fn> qa;
  qa.x = a.data(), qa.m = m, qa.k = k, qa.lda = ld, qa.q = aq.data(), qa.ldq = ld,
  qa.scales = sa.data(), qa.scale_count = m;
  QuantizeBArgs<e4m3fn> qb;
  qb.x = b.data(), qb.n = n, qb.k = k, qb.ldb = ld, qb.q = bq.data(), qb.ldq = ld,
  qb.scales = sb.data(), qb.scale_count = n;
  Status st = quantize_a_host<e4m3fn, PerChannel>(qa);
  DEMO_CHECK(st.ok(), st.to_string().c_str());
  st = quantize_b_host<e4m3fn, PerChannel>(qb);
  DEMO_CHECK(st.ok(), st.to_string().c_str());

  // 2. The GEMM.
  std::vector<bf16> c(std::size_t(m) * n);
  Gemm<Config>::Arguments args;
  args.problem.m = m, args.problem.n = n, args.problem.k = k, args.lda = ld, args.ldb = ld;
  args.scale_a_count = Gemm<Config>::scale_shape_a(m, k).size();  // PerChannel: {m, 1}
  args.scale_b_count = Gemm<Config>::scale_shape_b(n, k).size();  // {n, 1}
  args.epilogue.ldc = n;
  double ms = 0;
#if defined(FP8GEMM_BACKEND_CUDA)
  e4m3fn *da, *db;
  float *dsa, *dsb;
  bf16* dc;
  DEMO_CHECK(cudaMalloc(&da, aq.size()) == cudaSuccess &&
                 cudaMalloc(&db, bq.size()) == cudaSuccess &&
                 cudaMalloc(&dsa, m * 4) == cudaSuccess && cudaMalloc(&dsb, n * 4) == cudaSuccess &&
                 cudaMalloc(&dc, c.size() * 2) == cudaSuccess,
             "cudaMalloc failed (is there a GPU?)");
  DEMO_CHECK(cudaMemcpy(da, aq.data(), aq.size(), cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(db, bq.data(), bq.size(), cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(dsa, sa.data(), m * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(dsb, sb.data(), n * 4, cudaMemcpyHostToDevice) == cudaSuccess,
             "cudaMemcpy failed");
  args.a = da, args.b = db, args.scale_a = dsa, args.scale_b = dsb, args.epilogue.c = dc;
  st = Gemm<Config>::run(args);  // warm-up
  DEMO_CHECK(st.ok(), st.to_string().c_str());
  cudaEvent_t e0, e1;
  DEMO_CHECK(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess,
             "cudaEventCreate failed");
  DEMO_CHECK(cudaEventRecord(e0) == cudaSuccess, "cudaEventRecord failed");
  st = Gemm<Config>::run(args);
  DEMO_CHECK(cudaEventRecord(e1) == cudaSuccess, "cudaEventRecord failed");
  DEMO_CHECK(st.ok() && cudaEventSynchronize(e1) == cudaSuccess, "GEMM failed");
  float fms = 0;
  DEMO_CHECK(cudaEventElapsedTime(&fms, e0, e1) == cudaSuccess, "cudaEventElapsedTime failed");
  ms = fms;
  DEMO_CHECK(cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost) == cudaSuccess,
             "cudaMemcpy failed");
#else
  args.a = aq.data(), args.b = bq.data(), args.scale_a = sa.data(), args.scale_b = sb.data(),
  args.epilogue.c = c.data();
  auto const t0 = std::chrono::steady_clock::now();
  st = Gemm<Config>::run(args);
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  DEMO_CHECK(st.ok(), st.to_string().c_str());
#endif

  // 3. FP64 references: on the quantized operands (kernel exactness) and on the original inputs.
  std::vector<double> const ad =
      test::dequantize_a<e4m3fn, PerChannel>(aq.data(), m, k, ld, sa.data());
  std::vector<double> const bd =
      test::dequantize_b<e4m3fn, PerChannel>(bq.data(), n, k, ld, LayoutB::kNK, sb.data());
  test::GemmReference const ref = test::reference_gemm(ad, bd, m, n, k);
  std::vector<double> af(std::size_t(m) * k), bf(std::size_t(k) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) af[i * k + j] = a[i * ld + j];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) bf[j * n + i] = b[i * ld + j];
  test::GemmReference const exact = test::reference_gemm(af, bf, m, n, k);
  double num_q = 0, num_e = 0, den = 0, max_rel_q = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    double const out = bf16_to_float(c[i]);
    double const yq = test::gelu_tanh(ref.c[i]);
    double const ye = test::gelu_tanh(exact.c[i]);
    num_q += (out - yq) * (out - yq);
    num_e += (out - ye) * (out - ye);
    den += ye * ye;
    if (std::fabs(yq) > 1e-3) max_rel_q = std::fmax(max_rel_q, std::fabs(out - yq) / std::fabs(yq));
  }
  std::printf(
      "kernel vs FP64 on the quantized inputs: normwise %.3g, max relative %.3g (bf16 output: <= "
      "2^-8 = 0.0039 expected)\n",
      std::sqrt(num_q / den), max_rel_q);
  std::printf(
      "end-to-end vs FP64 on the unquantized inputs: normwise %.3g (e4m3 quantization error)\n",
      std::sqrt(num_e / den));
  std::printf("time: %.3f ms (%s)\n", ms, kBackend);
  bool const ok = std::sqrt(num_q / den) < 4e-3 && max_rel_q < 8e-3;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
