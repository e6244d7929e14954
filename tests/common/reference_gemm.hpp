// SPDX-License-Identifier: MIT
/// FP64 host reference for the tests: dequantized operands, C = A·B and Σ|A||B| in double, and the
/// epilogue y = act(C + bias[n]) rounded to the output type (test helpers, namespace
/// fp8gemm::test).
///
/// Scales are applied when dequantizing (a = q_a · s_a, b = q_b · s_b, each product exact in
/// double: an fp8 value has <= 4 significant bits and a float scale 24), so C here already carries
/// s_a ⊗ s_b. The epilogue takes no further scale except the fp8 output scale s_out: q = fp8(y /
/// s_out).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/quant/quantize_common.hpp"

namespace fp8gemm::test {

/// Scale of element (r, k) of an operand seen as rows x K (A: M x K, B: N x K), as a double.
template <class G>
double scale_at(Operand op, std::int64_t rows, std::int64_t k, float const* scales,
                e8m0 const* mx_scales, std::int64_t r, std::int64_t kk) {
  ScaleBlocking const b = scale_blocking<G>(op, rows, k);
  std::int64_t const e = b.index(r, kk);
  if constexpr (std::is_same_v<G, Mx32>) {
    return static_cast<double>(mx_scale_value(mx_scales[e]));
  } else {
    return static_cast<double>(scales[e]);
  }
}

/// A_deq[m][k] = fp8_to_float(q[m*ldq + k]) · s_a(m, k), M x K row-major doubles.
/// scales: float[] (PerTensor/PerChannel/Blockwise) or mx_scales: e8m0[] (Mx32).
template <class T, class G>
std::vector<double> dequantize_a(T const* q, std::int64_t m, std::int64_t k, std::int64_t ldq,
                                 float const* scales, e8m0 const* mx_scales = nullptr) {
  std::vector<double> a(static_cast<std::size_t>(m * k));
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t kk = 0; kk < k; ++kk) {
      a[r * k + kk] = static_cast<double>(fp8_to_float(q[r * ldq + kk])) *
                      scale_at<G>(Operand::kA, m, k, scales, mx_scales, r, kk);
    }
  }
  return a;
}

/// B_deq[k][n] = fp8_to_float(q(n, k)) · s_b(n, k), K x N row-major doubles, q stored per layout.
template <class T, class G>
std::vector<double> dequantize_b(T const* q, std::int64_t n, std::int64_t k, std::int64_t ldq,
                                 LayoutB layout, float const* scales,
                                 e8m0 const* mx_scales = nullptr) {
  OperandView const v = view_b(n, k, ldq, layout);
  std::vector<double> b(static_cast<std::size_t>(k * n));
  for (std::int64_t c = 0; c < n; ++c) {
    for (std::int64_t kk = 0; kk < k; ++kk) {
      b[kk * n + c] = static_cast<double>(fp8_to_float(q[v.offset(c, kk)])) *
                      scale_at<G>(Operand::kB, n, k, scales, mx_scales, c, kk);
    }
  }
  return b;
}

/// C = A·B and |A|·|B| (the Σ_k |a_k b_k| the error bound needs), both M x N row-major.
struct GemmReference {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::vector<double> c;
  std::vector<double> abs_c;
};

/// C[m][n] = Σ_k A[m][k]·B[k][n], abs_c[m][n] = Σ_k |A[m][k]|·|B[k][n]|, in double. Rows are
/// split among the host's threads; each row's sums run in k order whatever the split, so the
/// result does not depend on the thread count.
inline GemmReference reference_gemm(std::vector<double> const& a, std::vector<double> const& b,
                                    std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmReference ref{m, n, k, std::vector<double>(static_cast<std::size_t>(m * n), 0.0),
                    std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  auto rows = [&](std::int64_t r_begin, std::int64_t r_end) {
    for (std::int64_t r = r_begin; r < r_end; ++r) {
      for (std::int64_t kk = 0; kk < k; ++kk) {
        double const av = a[r * k + kk];
        if (av == 0.0) continue;
        double const* brow = &b[kk * n];
        double* crow = &ref.c[r * n];
        double* arow = &ref.abs_c[r * n];
        for (std::int64_t c = 0; c < n; ++c) {
          crow[c] += av * brow[c];
          arow[c] += std::fabs(av * brow[c]);
        }
      }
    }
  };
  // Threads only where the work pays for them (about 2^22 multiply-adds each at least).
  std::int64_t const work = m * n * k;
  std::int64_t const hw = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  std::int64_t const threads = std::min({hw, m, std::max<std::int64_t>(1, work >> 22)});
  if (threads <= 1) {
    rows(0, m);
    return ref;
  }
  std::vector<std::thread> pool;
  std::int64_t const per = (m + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t)
    if (t * per < m) pool.emplace_back(rows, t * per, std::min(m, (t + 1) * per));
  for (std::thread& t : pool) t.join();  // waits for: every row range
  return ref;
}

/// Epilogue activation.
enum class Activation { kIdentity, kGeluTanh, kGeluErf };

inline char const* activation_name(Activation a) {
  switch (a) {
    case Activation::kIdentity:
      return "identity";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kGeluErf:
      return "gelu_erf";
  }
  return "?";
}

/// gelu_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
inline double gelu_tanh(double x) {
  constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

/// gelu_erf(x) = 0.5·x·(1 + erf(x/√2))
inline double gelu_erf(double x) {
  constexpr double kInvSqrt2 = 0.70710678118654752440084436210485;
  return 0.5 * x * (1.0 + std::erf(x * kInvSqrt2));
}

inline double apply_activation(Activation a, double x) {
  switch (a) {
    case Activation::kIdentity:
      return x;
    case Activation::kGeluTanh:
      return gelu_tanh(x);
    case Activation::kGeluErf:
      return gelu_erf(x);
  }
  return x;
}

/// Output element type of the GEMM.
enum class OutputType { kF32, kBf16, kF16, kE4m3fn, kE5m2, kE4m3fnuz, kE5m2fnuz };

inline char const* output_type_name(OutputType t) {
  switch (t) {
    case OutputType::kF32:
      return "f32";
    case OutputType::kBf16:
      return "bf16";
    case OutputType::kF16:
      return "f16";
    case OutputType::kE4m3fn:
      return "e4m3fn";
    case OutputType::kE5m2:
      return "e5m2";
    case OutputType::kE4m3fnuz:
      return "e4m3fnuz";
    case OutputType::kE5m2fnuz:
      return "e5m2fnuz";
  }
  return "?";
}

inline bool is_fp8_output(OutputType t) {
  return t == OutputType::kE4m3fn || t == OutputType::kE5m2 || t == OutputType::kE4m3fnuz ||
         t == OutputType::kE5m2fnuz;
}

/// y rounded to the output type and read back as a double: float(y) rounded (RNE) to bf16/f16, or
/// for fp8 q = fp8(float(y) / s_out) (saturating, RNE) and the value q·s_out.
/// NOTE: y goes through float first, as it does in the kernel (the rare double rounding is covered
/// by the half-ulp term of the tolerance, which is evaluated at the larger magnitude).
inline double round_to_output(OutputType t, double y, double out_scale = 1.0) {
  float const f = static_cast<float>(y);
  float const s = static_cast<float>(out_scale);
  switch (t) {
    case OutputType::kF32:
      return f;
    case OutputType::kBf16:
      return bf16_to_float(float_to_bf16(f));
    case OutputType::kF16:
      return fp16_to_float(float_to_fp16(f));
    case OutputType::kE4m3fn:
      return double(fp8_to_float(float_to_fp8<e4m3fn>(f / s))) * s;
    case OutputType::kE5m2:
      return double(fp8_to_float(float_to_fp8<e5m2>(f / s))) * s;
    case OutputType::kE4m3fnuz:
      return double(fp8_to_float(float_to_fp8<e4m3fnuz>(f / s))) * s;
    case OutputType::kE5m2fnuz:
      return double(fp8_to_float(float_to_fp8<e5m2fnuz>(f / s))) * s;
  }
  return f;
}

/// The epilogue in double: z = C + bias[n], y = act(z), rounded = round_to_output(y), amax =
/// max|y|.
struct EpilogueReference {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::vector<double> z;        // pre-activation C + bias
  std::vector<double> y;        // exact act(z)
  std::vector<double> rounded;  // y in the output type, as a double (fp8: q·s_out)
  double amax = 0.0;            // max |y| (what a fused amax epilogue should report)
};

/// bias: double[N] or null (no bias). out_scale: s_out for fp8 outputs (ignored otherwise).
inline EpilogueReference reference_epilogue(GemmReference const& c, double const* bias,
                                            Activation act, OutputType out,
                                            double out_scale = 1.0) {
  EpilogueReference e;
  e.m = c.m;
  e.n = c.n;
  std::size_t const count = static_cast<std::size_t>(c.m * c.n);
  e.z.resize(count);
  e.y.resize(count);
  e.rounded.resize(count);
  double const s = is_fp8_output(out) ? out_scale : 1.0;
  for (std::int64_t r = 0; r < c.m; ++r) {
    for (std::int64_t col = 0; col < c.n; ++col) {
      std::size_t const i = static_cast<std::size_t>(r * c.n + col);
      e.z[i] = c.c[i] + (bias != nullptr ? bias[col] : 0.0);
      e.y[i] = apply_activation(act, e.z[i]);
      e.rounded[i] = round_to_output(out, e.y[i], s);
      e.amax = std::fmax(e.amax, std::fabs(e.y[i]));
    }
  }
  return e;
}

}  // namespace fp8gemm::test
