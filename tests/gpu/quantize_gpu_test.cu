// SPDX-License-Identifier: MIT
/// GPU quantizers (quantize_kernels.hpp) against the host reference (quantize_host.hpp): amax,
/// scales and q bit for bit for every granularity x format x operand/layout x rounding, the same
/// validation and non-finite statuses, and untouched padding.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/generators.hpp"
#include "common/poison.hpp"
#include "fp8gemm/quant/quantize_host.hpp"
#include "fp8gemm/quant/quantize_kernels.hpp"
#include "unit/quant/quant_test_util.hpp"

namespace fp8gemm::test {
namespace {

#define FP8GEMM_TEST_CUDA_ASSERT(call)                                     \
  do {                                                                     \
    cudaError_t const e_ = (call);                                         \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_); \
  } while (0)

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define FP8GEMM_REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device"

struct Shape {
  std::int64_t rows, k;
};

/// Quantizes one operand on the host and on the GPU with identical arguments (device copies) and
/// compares q (padding included: the poison must survive), scales and the status bit for bit.
template <class T, class G>
void check_quantize(OperandCase oc, Shape sh, Distribution d, Rounding rounding, ScaleOptions opts,
                    std::uint64_t seed) {
  constexpr bool kMx = std::is_same_v<G, Mx32>;
  bool const kc = oc.op == Operand::kA || oc.layout == LayoutB::kNK;
  std::int64_t const storage_rows = kc ? sh.rows : sh.k;
  std::int64_t const storage_cols = kc ? sh.k : sh.rows;
  std::int64_t const ld = storage_cols + 3, ldq = storage_cols + 4;
  std::vector<float> const x = random_matrix(storage_rows, storage_cols, ld, d, seed);
  std::int64_t const count = scale_shape<G>(oc.op, sh.rows, sh.k).size();

  std::vector<T> q_host(storage_rows * ldq), q_gpu(storage_rows * ldq);
  poison_host(q_host);
  std::vector<float> s_host(kMx ? 0 : count), s_gpu(kMx ? 0 : count);
  std::vector<e8m0> m_host(kMx ? count : 0), m_gpu(kMx ? count : 0);

  DeviceBuffer dx, dq, ds;
  FP8GEMM_TEST_CUDA_ASSERT(upload(dx, x));
  FP8GEMM_TEST_CUDA_ASSERT(upload(dq, q_host));  // poisoned
  if (kMx) {
    FP8GEMM_TEST_CUDA_ASSERT(upload(ds, m_gpu));
  } else {
    FP8GEMM_TEST_CUDA_ASSERT(upload(ds, s_gpu));
  }
  float* hs = kMx ? nullptr : s_host.data();
  e8m0* hm = kMx ? m_host.data() : nullptr;
  float* gs = kMx ? nullptr : ds.as<float>();
  e8m0* gm = kMx ? ds.as<e8m0>() : nullptr;
  Status host, gpu;
  if (oc.op == Operand::kA) {
    host = quantize_a_host<T, G>(
        {x.data(), sh.rows, sh.k, ld, q_host.data(), ldq, hs, hm, count, opts, rounding, seed});
    gpu = quantize_a_gpu<T, G>(
        {dx.as<float>(), sh.rows, sh.k, ld, dq.as<T>(), ldq, gs, gm, count, opts, rounding, seed});
  } else {
    host = quantize_b_host<T, G>({x.data(), sh.rows, sh.k, ld, oc.layout, q_host.data(), ldq, hs,
                                  hm, count, opts, rounding, seed});
    gpu = quantize_b_gpu<T, G>({dx.as<float>(), sh.rows, sh.k, ld, oc.layout, dq.as<T>(), ldq, gs,
                                gm, count, opts, rounding, seed});
  }
  std::string const ctx = std::string(oc.name) + " " + FormatTraits<T>::kName + " " + G::kName +
                          " " + distribution_name(d) +
                          (rounding == Rounding::kStochastic ? " stochastic" : " rne") +
                          (opts.power_of_two ? " pow2" : "") + " " + std::to_string(sh.rows) + "x" +
                          std::to_string(sh.k);
  ASSERT_TRUE(host.ok()) << ctx << ": " << host.to_string();
  ASSERT_TRUE(gpu.ok()) << ctx << ": " << gpu.to_string();
  FP8GEMM_TEST_CUDA_ASSERT(cudaDeviceSynchronize());
  FP8GEMM_TEST_CUDA_ASSERT(download(q_gpu, dq));
  if (kMx) {
    FP8GEMM_TEST_CUDA_ASSERT(download(m_gpu, ds));
    for (std::int64_t i = 0; i < count; ++i)
      ASSERT_EQ(m_host[i].bits, m_gpu[i].bits) << ctx << " mx scale " << i;
  } else {
    FP8GEMM_TEST_CUDA_ASSERT(download(s_gpu, ds));
    ASSERT_EQ(std::memcmp(s_host.data(), s_gpu.data(), count * sizeof(float)), 0)
        << ctx << " scales differ";
  }
  for (std::size_t i = 0; i < q_host.size(); ++i) {
    ASSERT_EQ(q_host[i].bits, q_gpu[i].bits)
        << ctx << " q at storage index " << i << " (row " << i / ldq << ", col " << i % ldq
        << (i % ldq >= std::size_t(storage_cols) ? ", padding" : "") << ")";
  }
  EXPECT_TRUE(all_written(q_gpu.data(), storage_rows, storage_cols, ldq)) << ctx;
}

TEST(QuantizeGpu, BitIdenticalToHostEveryGranularityFormatLayoutRounding) {
  FP8GEMM_REQUIRE_GPU();
  for_each_type<Formats>([](auto t) {
    using T = decltype(t);
    for_each_type<Granularities>([](auto g) {
      using G = decltype(g);
      for (OperandCase const& oc : kOperandCases) {
        for (Rounding r : {Rounding::kNearestEven, Rounding::kStochastic}) {
          for (Distribution d : kAllDistributions) {
            check_quantize<T, G>(oc, {67, 300}, d, r, {}, 17);
            if (::testing::Test::HasFatalFailure()) return;
          }
          if constexpr (!std::is_same_v<G, Mx32>)
            check_quantize<T, G>(oc, {67, 300}, Distribution::kOutliers, r, {true}, 5);
        }
      }
    });
  });
}

TEST(QuantizeGpu, LargeShapesManyAmaxChunks) {
  FP8GEMM_REQUIRE_GPU();
  // per-tensor amax over 2^22 elements runs 1024 chunks per block: atomics across blocks
  check_quantize<e4m3fn, PerTensor>(kOperandCases[0], {1024, 4096}, Distribution::kOutliers,
                                    Rounding::kStochastic, {}, 1);
  check_quantize<e4m3fnuz, PerChannel>(kOperandCases[2], {1000, 3000}, Distribution::kRowRanges,
                                       Rounding::kNearestEven, {true}, 2);
  check_quantize<e5m2, Blockwise<128, 128, 128>>(
      kOperandCases[1], {777, 1000}, Distribution::kNormal, Rounding::kStochastic, {}, 3);
  check_quantize<e4m3fn, Mx32>(kOperandCases[0], {513, 4100}, Distribution::kOutliers,
                               Rounding::kStochastic, {}, 4);
  check_quantize<e4m3fn, PerTensor>(kOperandCases[0], {1, 1}, Distribution::kNormal,
                                    Rounding::kNearestEven, {}, 5);
}

TEST(QuantizeGpu, AmaxAndScalesMatchHost) {
  FP8GEMM_REQUIRE_GPU();
  for_each_type<Granularities>([](auto g) {
    using G = decltype(g);
    for (OperandCase const& oc : kOperandCases) {
      bool const kc = oc.op == Operand::kA || oc.layout == LayoutB::kNK;
      std::int64_t const rows = 45, k = 260;
      std::int64_t const ld = (kc ? k : rows) + 2;
      std::vector<float> const x =
          random_matrix(kc ? rows : k, kc ? k : rows, ld, Distribution::kOutliers, 8);
      std::int64_t const count = scale_shape<G>(oc.op, rows, k).size();
      std::vector<float> a_host(count), a_gpu(count);
      DeviceBuffer dx, da;
      FP8GEMM_TEST_CUDA_ASSERT(upload(dx, x));
      FP8GEMM_TEST_CUDA_ASSERT(upload(da, a_gpu));
      Status const h =
          oc.op == Operand::kA
              ? amax_a_host<G>({x.data(), rows, k, ld, a_host.data(), count})
              : amax_b_host<G>({x.data(), rows, k, ld, oc.layout, a_host.data(), count});
      Status const d =
          oc.op == Operand::kA
              ? amax_a_gpu<G>({dx.as<float>(), rows, k, ld, da.as<float>(), count})
              : amax_b_gpu<G>({dx.as<float>(), rows, k, ld, oc.layout, da.as<float>(), count});
      ASSERT_TRUE(h.ok() && d.ok()) << h.to_string() << " / " << d.to_string();
      FP8GEMM_TEST_CUDA_ASSERT(cudaDeviceSynchronize());
      FP8GEMM_TEST_CUDA_ASSERT(download(a_gpu, da));
      ASSERT_EQ(std::memcmp(a_host.data(), a_gpu.data(), count * sizeof(float)), 0)
          << oc.name << " " << G::kName;

      for_each_type<Formats>([&](auto t) {
        using T = decltype(t);
        for (bool pow2 : {false, true}) {
          constexpr bool kMx = std::is_same_v<G, Mx32>;
          std::vector<float> s_host(kMx ? 0 : count), s_gpu(kMx ? 0 : count);
          std::vector<e8m0> m_host(kMx ? count : 0), m_gpu(kMx ? count : 0);
          DeviceBuffer ds;
          if (kMx) {
            ASSERT_EQ(upload(ds, m_gpu), cudaSuccess);
          } else {
            ASSERT_EQ(upload(ds, s_gpu), cudaSuccess);
          }
          ScalesFromAmaxArgs hs{oc.op,
                                a_host.data(),
                                count,
                                kMx ? nullptr : s_host.data(),
                                kMx ? m_host.data() : nullptr,
                                {pow2}};
          ScalesFromAmaxArgs gs{oc.op,
                                da.as<float>(),
                                count,
                                kMx ? nullptr : ds.as<float>(),
                                kMx ? ds.as<e8m0>() : nullptr,
                                {pow2}};
          ASSERT_TRUE((scales_from_amax_host<T, G>(hs)).ok());
          ASSERT_TRUE((scales_from_amax_gpu<T, G>(gs)).ok());
          if (kMx) {
            ASSERT_EQ(download(m_gpu, ds), cudaSuccess);
            for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(m_host[i].bits, m_gpu[i].bits);
          } else {
            ASSERT_EQ(download(s_gpu, ds), cudaSuccess);
            ASSERT_EQ(std::memcmp(s_host.data(), s_gpu.data(), count * sizeof(float)), 0);
          }
        }
      });
    }
  });
}

TEST(QuantizeGpu, NonFiniteInputGivesTheHostStatus) {
  FP8GEMM_REQUIRE_GPU();
  std::vector<float> x = random_matrix(40, 64, 64, Distribution::kNormal, 3);
  x[20 * 64 + 9] = INFINITY;
  x[31 * 64 + 2] = NAN;
  x[7 * 64 + 50] = -INFINITY;  // first in (row, k) order
  std::vector<e4m3fn> q(40 * 64);
  std::vector<float> s(40 * 2);
  DeviceBuffer dx, dq, ds;
  FP8GEMM_TEST_CUDA_ASSERT(upload(dx, x));
  FP8GEMM_TEST_CUDA_ASSERT(upload(dq, q));
  FP8GEMM_TEST_CUDA_ASSERT(upload(ds, s));
  using G = Blockwise<1, 128, 32>;
  Status const h =
      quantize_a_host<e4m3fn, G>({x.data(), 40, 64, 64, q.data(), 64, s.data(), nullptr, 80});
  Status const d = quantize_a_gpu<e4m3fn, G>(
      {dx.as<float>(), 40, 64, 64, dq.as<e4m3fn>(), 64, ds.as<float>(), nullptr, 80});
  EXPECT_EQ(h.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_EQ(d.code(), h.code());
  EXPECT_EQ(d.message(), h.message());
  EXPECT_NE(d.message().find("row 7, k 50"), std::string::npos) << d.message();
  std::vector<float> sg(80);
  FP8GEMM_TEST_CUDA_ASSERT(download(sg, ds));
  EXPECT_TRUE(std::isnan(sg[7 * 2 + 1]) && std::isnan(sg[20 * 2 + 0]) &&
              std::isnan(sg[31 * 2 + 0]));
  EXPECT_EQ(std::memcmp(sg.data(), s.data(), sizeof(float) * 80), 0)
      << "same scales (NaN included) as the host";

  std::vector<float> amax = {1.0f, 2.0f, INFINITY};
  DeviceBuffer dam, dsc;
  FP8GEMM_TEST_CUDA_ASSERT(upload(dam, amax));
  FP8GEMM_TEST_CUDA_ASSERT(upload(dsc, std::vector<e8m0>(3)));
  Status const sd = scales_from_amax_gpu<e5m2, Mx32>(
      {Operand::kB, dam.as<float>(), 3, nullptr, dsc.as<e8m0>(), {}});
  EXPECT_EQ(sd.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(sd.message().find("B mx32: amax[2] is inf"), std::string::npos) << sd.message();
}

// Validation runs before any device work and is the host's: same codes, same messages.
TEST(QuantizeGpu, ValidationMatchesHost) {
  std::vector<float> x(64 * 64, 1.0f);
  std::vector<e4m3fn> q(64 * 64);
  std::vector<float> s(64);
  std::vector<e8m0> mx(128);
  QuantizeAArgs<e4m3fn> const ok{x.data(), 64, 64, 64, q.data(), 64, s.data(), nullptr, 64};
  std::vector<QuantizeAArgs<e4m3fn>> bad(6, ok);
  bad[0].x = nullptr;
  bad[1].m = 0;
  bad[2].lda = 63;
  bad[3].scale_count = 63;
  bad[4].mx_scales = mx.data();
  bad[5].ldq = 1;
  for (auto const& a : bad) {
    Status const h = quantize_a_host<e4m3fn, PerChannel>(a);
    Status const d = quantize_a_gpu<e4m3fn, PerChannel>(a);
    EXPECT_FALSE(h.ok());
    EXPECT_EQ(h.code(), d.code());
    EXPECT_EQ(h.message(), d.message());
  }
  QuantizeAArgs<e4m3fn> m = ok;
  m.scale_count = 128;
  Status const d = quantize_a_gpu<e4m3fn, Mx32>(m);
  EXPECT_EQ(d.code(), StatusCode::kErrorInvalidArgument);
  EXPECT_NE(d.message().find("A mx32 scales must be e8m0"), std::string::npos) << d.message();
  QuantizeBArgs<e5m2> b{x.data(), 64, 64, 64, LayoutB::kKN, nullptr, 64, s.data(), nullptr, 64};
  EXPECT_EQ((quantize_b_gpu<e5m2, PerChannel>(b)).message(), "B: q is null");
  b.q = reinterpret_cast<e5m2*>(q.data());
  b.ldb = 63;
  EXPECT_NE((quantize_b_gpu<e5m2, PerChannel>(b))
                .message()
                .find("B (mk_kn_mn): ldb must be >= N (ldb 63 < 64)"),
            std::string::npos);
  EXPECT_EQ((amax_a_gpu<PerTensor>({x.data(), 64, 64, 64, s.data(), 2})).code(),
            StatusCode::kErrorScaleShape);
}

}  // namespace
}  // namespace fp8gemm::test
