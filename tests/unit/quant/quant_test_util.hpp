// SPDX-License-Identifier: MIT
/// Shared pieces of the quantizer tests: type lists, an independent block mapping, and a
/// one-call "quantize this operand" wrapper over the A and B entry points (tests/unit/quant).
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/generators.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/quantize_host.hpp"

namespace fp8gemm::test {

using Formats = std::tuple<e4m3fn, e5m2, e4m3fnuz, e5m2fnuz>;
using Granularities = std::tuple<PerTensor, PerChannel, Blockwise<1, 128, 128>,
                                 Blockwise<128, 128, 128>, Blockwise<3, 5, 7>, Mx32>;

/// Calls f(T{}) for every T of a tuple type.
template <class Tuple, class F>
void for_each_type(F&& f) {
  std::apply([&](auto... t) { (f(t), ...); }, Tuple{});
}

/// The three operand cases: A, and B in each layout.
struct OperandCase {
  Operand op;
  LayoutB layout;
  char const* name;
};
inline constexpr OperandCase kOperandCases[] = {{Operand::kA, LayoutB::kNK, "A"},
                                                {Operand::kB, LayoutB::kNK, "B mk_nk_mn"},
                                                {Operand::kB, LayoutB::kKN, "B mk_kn_mn"}};

/// Block extent of granularity G along rows (M or N) and along K, computed independently of
/// quantize_common.hpp's ScaleBlocking.
template <class G>
std::int64_t block_rows_of(Operand op, std::int64_t rows) {
  if constexpr (std::is_same_v<G, PerTensor>)
    return rows;
  else if constexpr (std::is_same_v<G, PerChannel>)
    return 1;
  else
    return op == Operand::kA ? G::kABlockM : G::kBBlockN;
}
template <class G>
std::int64_t block_k_of(std::int64_t k) {
  if constexpr (std::is_same_v<G, PerTensor> || std::is_same_v<G, PerChannel>)
    return k;
  else
    return G::kBlockK;
}

/// One quantized operand seen as rows x K: the logical input xr[r*K + k], q, and its scales as
/// float values per element.
template <class T>
struct Quantized {
  std::int64_t rows = 0, k = 0;
  std::vector<float> x;         // rows x K logical input (no padding)
  std::vector<T> q_logical;     // rows x K logical q
  std::vector<float> scale_of;  // rows x K: the scale applied to each element
  std::vector<float> scales;    // float scale array (non-Mx32)
  std::vector<e8m0> mx_scales;  // e8m0 scale array (Mx32)
  Status status;
};

/// Generates an operand (A, or B in `layout`), quantizes it with the host quantizer and returns the
/// logical view. Storage uses padded leading dimensions (ld = extent + 3, padding NaN).
template <class T, class G>
Quantized<T> quantize_operand(Operand op, LayoutB layout, std::int64_t rows, std::int64_t k,
                              Distribution d, std::uint64_t seed, Rounding rounding,
                              ScaleOptions options = {},
                              std::vector<float> const* logical = nullptr) {
  Quantized<T> out;
  out.rows = rows;
  out.k = k;
  out.x = logical != nullptr ? *logical : random_matrix(rows, k, k, d, seed);
  bool const k_contiguous = op == Operand::kA || layout == LayoutB::kNK;
  std::int64_t const ld = (k_contiguous ? k : rows) + 3;
  std::int64_t const ldq = (k_contiguous ? k : rows) + 5;
  std::int64_t const storage_rows = k_contiguous ? rows : k;
  std::vector<float> xs(static_cast<std::size_t>(storage_rows * ld), NAN);
  std::vector<T> qs(static_cast<std::size_t>(storage_rows * ldq), T::from_bits(0));
  OperandView const v{rows, k, ld, k_contiguous};
  OperandView const qv{rows, k, ldq, k_contiguous};
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t kk = 0; kk < k; ++kk) xs[v.offset(r, kk)] = out.x[r * k + kk];
  }
  std::int64_t const count = scale_shape<G>(op, rows, k).size();
  constexpr bool kMx = std::is_same_v<G, Mx32>;
  if (kMx)
    out.mx_scales.assign(count, e8m0::from_bits(0));
  else
    out.scales.assign(count, -1.0f);
  float* sp = kMx ? nullptr : out.scales.data();
  e8m0* mp = kMx ? out.mx_scales.data() : nullptr;
  if (op == Operand::kA) {
    QuantizeAArgs<T> a{xs.data(), rows, k,     ld,      qs.data(), ldq,
                       sp,        mp,   count, options, rounding,  seed};
    out.status = quantize_a_host<T, G>(a);
  } else {
    QuantizeBArgs<T> b{xs.data(), rows, k,     ld,      layout,   qs.data(), ldq,
                       sp,        mp,   count, options, rounding, seed};
    out.status = quantize_b_host<T, G>(b);
  }
  out.q_logical.resize(static_cast<std::size_t>(rows * k));
  out.scale_of.resize(static_cast<std::size_t>(rows * k));
  std::int64_t const br = block_rows_of<G>(op, rows), bk = block_k_of<G>(k);
  std::int64_t const cols = (k + bk - 1) / bk;
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t kk = 0; kk < k; ++kk) {
      out.q_logical[r * k + kk] = qs[qv.offset(r, kk)];
      std::int64_t const e = (r / br) * cols + kk / bk;
      out.scale_of[r * k + kk] = kMx ? out.mx_scales[e].to_float() : out.scales[e];
    }
  }
  return out;
}

}  // namespace fp8gemm::test
