// SPDX-License-Identifier: MIT
/// Quantization arguments, validation and the per-element math shared by the host reference
/// quantizers (quantize_host.hpp) and the GPU kernels (quantize_kernels.hpp) (quant layer).
///
/// Conventions (everywhere in fp8gemm, see granularity.hpp):
///   dequant scale      s = amax / fmt_max            (one per scale block)
///   quantize           q = fp8(x / s)                (saturating; RNE or stochastic)
///   dequantize         x ~ q * s, so C = (s_a (x) s_b) * (A_q B_q)
///   amax == 0 or tiny  s = 1 whenever amax / fmt_max is 0, subnormal or not finite for a finite
///   amax:
///                      never 0, never NaN; the block then quantizes to zeros / tiny-value
///                      rounding.
///   amax NaN or Inf    not hidden: amax reports it (NaN dominates Inf dominates finite), forming a
///                      scale from it is an error (kErrorInvalidArgument naming the entry), and the
///                      quantizers return kErrorInvalidArgument naming the first non-finite element
///                      (row-major over (row, k) for A, over (n, k) for B). The scale written for
///                      such a block is NaN (e8m0 0xFF), so an ignored status still shows up
///                      downstream.
///   power_of_two       s is rounded UP to a power of two (2^ceil(log2 s)), so |x / s| <= fmt_max.
///   Mx32               scale = mx_shared_scale<T>(amax) as e8m0 (OCP MX: 2^(floor(log2 amax) -
///   emax));
///                      values are divided by 2^e and converted saturating. amax == 0 gives 2^0.
///   stochastic         the random bits of element (r, k) are random_bits(seed, r * K + k), where r
///   is
///                      the row of A or the column n of B (B counted as N x K whatever its layout).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/quant/random_bits.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// How x / s is rounded to the fp8 grid.
enum class Rounding {
  kNearestEven,  ///< round to nearest, ties to even
  kStochastic,   ///< round up with probability frac, using random_bits(seed, index)
};

/// Options for s = amax / fmt_max (ignored by Mx32, whose scale is always a power of two).
struct ScaleOptions {
  bool power_of_two = false;  ///< round s up to 2^ceil(log2 s)
};

/// Per-block amax of A (M x K, K contiguous). amax: float[scale_shape<G>(kA, m, k)].
struct AmaxAArgs {
  float const* x = nullptr;  // [m, lda], row-major
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t lda = 0;
  float* amax = nullptr;  // [scale rows, scale cols], row-major
  std::int64_t amax_count = 0;
};

/// Per-block amax of B (logically K x N, stored per `layout`). amax: float[scale_shape<G>(kB, n,
/// k)].
struct AmaxBArgs {
  float const* x = nullptr;  // kNK: [n, ldb]; kKN: [k, ldb]
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t ldb = 0;
  LayoutB layout = LayoutB::kNK;
  float* amax = nullptr;
  std::int64_t amax_count = 0;
};

/// Scales from amax values, one per entry: float for PerTensor/PerChannel/Blockwise, e8m0 for Mx32.
struct ScalesFromAmaxArgs {
  Operand operand = Operand::kA;  // only used in messages
  float const* amax = nullptr;
  std::int64_t count = 0;
  float* scales = nullptr;    // non-Mx32
  e8m0* mx_scales = nullptr;  // Mx32
  ScaleOptions options{};
};

/// Quantize A (M x K, K contiguous) into q (same layout, leading dimension ldq) plus its scales.
template <class T>
struct QuantizeAArgs {
  float const* x = nullptr;  // [m, lda], row-major
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t lda = 0;
  T* q = nullptr;  // [m, ldq], row-major
  std::int64_t ldq = 0;
  float* scales = nullptr;       // PerTensor/PerChannel/Blockwise: float[scale_shape<G>(kA, m, k)]
  e8m0* mx_scales = nullptr;     // Mx32: e8m0[m][ceil(k/32)]
  std::int64_t scale_count = 0;  // length of the scale array passed (scales or mx_scales)
  ScaleOptions scale_options{};
  Rounding rounding = Rounding::kNearestEven;
  std::uint64_t seed = 0;  // stochastic rounding only
  /// Blockwise only: 0 writes the scales row-major; > 0 K-block-major, K block kb of scale row r
  /// at scales[kb * scale_ld + r] (Gemm::Arguments::scale_a_ld; scale_ld >= the scale rows,
  /// scale_count >= (K blocks - 1) * scale_ld + rows; the entries between are not written).
  std::int64_t scale_ld = 0;
};

/// Quantize B (logically K x N, stored per `layout`) into q (same layout, leading dimension ldq).
template <class T>
struct QuantizeBArgs {
  float const* x = nullptr;  // kNK: [n, ldb] (K contiguous); kKN: [k, ldb] (N contiguous)
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t ldb = 0;
  LayoutB layout = LayoutB::kNK;
  T* q = nullptr;  // same layout as x, leading dimension ldq
  std::int64_t ldq = 0;
  float* scales = nullptr;    // PerTensor/PerChannel/Blockwise: float[scale_shape<G>(kB, n, k)]
  e8m0* mx_scales = nullptr;  // Mx32: e8m0[n][ceil(k/32)]
  std::int64_t scale_count = 0;
  ScaleOptions scale_options{};
  Rounding rounding = Rounding::kNearestEven;
  std::uint64_t seed = 0;
};

// ---- element math, identical on host and device ------------------------------------------------

/// Bits of |x|. For non-negative floats the unsigned order of the bits is the numeric order, and
/// NaN (> 0x7f800000) sorts above Inf (0x7f800000): max over these bits is an order-independent
/// amax in which NaN dominates Inf dominates every finite value.
FP8GEMM_HOST_DEVICE std::uint32_t abs_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u & 0x7fffffffu;
}

FP8GEMM_HOST_DEVICE float float_from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

FP8GEMM_HOST_DEVICE bool is_finite_bits(std::uint32_t abs) {
  return abs < 0x7f800000u;
}

/// Dequant scale from amax. s = amax / fmt_max; s = 1 if s is 0, subnormal or not finite while amax
/// is finite; NaN if amax is NaN or Inf (callers report that as an error). power_of_two: s =
/// 2^ceil(log2 s).
template <class T>
FP8GEMM_HOST_DEVICE float scale_from_amax(float amax, ScaleOptions options = {}) {
  std::uint32_t const a = abs_bits(amax);
  if (!is_finite_bits(a)) return float_from_bits(0x7fc00000u);
  float s = float_from_bits(a) / FormatTraits<T>::kMaxFinite;
  std::uint32_t u = abs_bits(s);
  // normal and finite: exponent field in [1, 254]
  if (u < 0x00800000u || u >= 0x7f800000u) return 1.0f;
  if (options.power_of_two && (u & 0x007fffffu) != 0) {
    // 2^ceil(log2 s): clear the mantissa and step the exponent up once
    u = (u & 0x7f800000u) + 0x00800000u;
    if (u >= 0x7f800000u) return 1.0f;  // unreachable for finite amax and fmt_max >= 1
    s = float_from_bits(u);
  }
  return s;
}

/// OCP MX shared scale of a block: mx_shared_scale<T>(amax) = 2^(floor(log2 amax) - emax(T)),
/// clamped to e8m0's [2^-127, 2^127]; amax == 0 gives 2^0; NaN/Inf amax gives the e8m0 NaN (0xff),
/// reported as an error by the callers.
template <class T>
FP8GEMM_HOST_DEVICE e8m0 mx_scale_from_amax(float amax) {
  return mx_shared_scale<T>(amax);
}

/// Value of an e8m0 scale: 2^(bits - 127), exact as a float (2^-127 is a float subnormal); 0xff:
/// NaN.
FP8GEMM_HOST_DEVICE float mx_scale_value(e8m0 s) {
  return s.to_float();
}

/// One element: q = fp8(x / s), saturating; stochastic uses random_bits(seed, index).
template <class T>
FP8GEMM_HOST_DEVICE T quantize_value(float x, float s, Rounding rounding, std::uint64_t seed,
                                     std::uint64_t index) {
  float const y = x / s;
  if (rounding == Rounding::kStochastic) {
    return float_to_fp8_stochastic<T>(y, random_bits(seed, index), Saturation::kSaturate);
  }
  return float_to_fp8<T>(y, Saturation::kSaturate);
}

/// Where the scale of element (r, k) lives: r is the row of A or the n of B (B counted as N x K).
/// PerTensor: one block of extent x K; PerChannel: 1 x K; Blockwise: bm|bn x bk; Mx32: 1 x 32.
struct ScaleBlocking {
  std::int64_t block_rows = 1;  // rows of one scale block (M or N direction)
  std::int64_t block_k = 1;     // K extent of one scale block
  std::int64_t rows = 1;        // scale array rows
  std::int64_t cols = 1;        // scale array cols
  std::int64_t ld = 0;          // 0: stored row-major; > 0: K-block-major (QuantizeAArgs::scale_ld)
  /// The block of element (r, k), counted row-major (the amax passes' order).
  FP8GEMM_HOST_DEVICE std::int64_t index(std::int64_t r, std::int64_t k) const {
    return (r / block_rows) * cols + k / block_k;
  }
  FP8GEMM_HOST_DEVICE std::int64_t count() const { return rows * cols; }
  /// Where block e (row-major count) is stored in the scale array.
  FP8GEMM_HOST_DEVICE std::int64_t store_index(std::int64_t e) const {
    return ld == 0 ? e : (e % cols) * ld + e / cols;
  }
};

template <class G>
ScaleBlocking scale_blocking(Operand op, std::int64_t extent, std::int64_t k) {
  ScaleShape const shape = scale_shape<G>(op, extent, k);
  ScaleBlocking b;
  b.rows = shape.rows;
  b.cols = shape.cols;
  if constexpr (std::is_same_v<G, PerTensor>) {
    b.block_rows = extent;
    b.block_k = k;
  } else if constexpr (std::is_same_v<G, PerChannel>) {
    b.block_rows = 1;
    b.block_k = k;
  } else {
    b.block_rows = op == Operand::kA ? G::kABlockM : G::kBBlockN;
    b.block_k = G::kBlockK;
  }
  return b;
}

/// An operand seen as rows x K (A: M x K; B: N x K) over its storage.
struct OperandView {
  std::int64_t rows = 0;
  std::int64_t k = 0;
  std::int64_t ld = 0;
  bool k_contiguous = true;  // A and kNK B: offset r*ld + k; kKN B: offset k*ld + r
  FP8GEMM_HOST_DEVICE std::int64_t offset(std::int64_t r, std::int64_t kk) const {
    return k_contiguous ? r * ld + kk : kk * ld + r;
  }
};

inline OperandView view_a(std::int64_t m, std::int64_t k, std::int64_t ld) {
  return {m, k, ld, true};
}
inline OperandView view_b(std::int64_t n, std::int64_t k, std::int64_t ld, LayoutB layout) {
  return {n, k, ld, layout == LayoutB::kNK};
}

// ---- validation, shared by the host and GPU entry points -------------------------------------

namespace detail {

template <class G>
constexpr bool kIsMx = std::is_same_v<G, Mx32>;

inline char const* operand_name(Operand op) {
  return op == Operand::kA ? "A" : "B";
}

/// "300 floats (one per row)", "12 floats (3 x 4 blocks of 1 x 128 over M x K)", ...
template <class G>
std::string describe_scale_count(Operand op, ScaleShape shape) {
  std::string const n = std::to_string(shape.size());
  if constexpr (std::is_same_v<G, PerTensor>) {
    return n + " float" + (shape.size() == 1 ? "" : "s");
  } else if constexpr (std::is_same_v<G, PerChannel>) {
    return n + " floats (" + (op == Operand::kA ? "one per row" : "one per column of C") + ")";
  } else {
    int const block = op == Operand::kA ? G::kABlockM : G::kBBlockN;
    std::string const unit = kIsMx<G> ? " e8m0 (" : " floats (";
    return n + unit + std::to_string(shape.rows) + " x " + std::to_string(shape.cols) +
           " blocks of " + std::to_string(block) + " x " + std::to_string(G::kBlockK) + " over " +
           (op == Operand::kA ? "M x K" : "N x K") + ")";
  }
}

/// Checks x, the sizes and the input leading dimension of one operand.
inline Status validate_operand(Operand op, float const* x, std::int64_t rows, std::int64_t k,
                               std::int64_t ld, LayoutB layout, char const* ld_name) {
  char const* name = operand_name(op);
  char const* rows_name = op == Operand::kA ? "M" : "N";
  if (x == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, std::string(name) + ": x is null");
  if (rows < 1) {
    return Status::error(
        StatusCode::kErrorInvalidSize,
        std::string(name) + ": " + rows_name + " must be >= 1 (got " + std::to_string(rows) + ")");
  }
  if (k < 1) {
    return Status::error(StatusCode::kErrorInvalidSize,
                         std::string(name) + ": K must be >= 1 (got " + std::to_string(k) + ")");
  }
  bool const k_contiguous = op == Operand::kA || layout == LayoutB::kNK;
  std::int64_t const row = k_contiguous ? k : rows;
  if (ld < row) {
    std::string const where =
        op == Operand::kA ? std::string("A") : std::string("B (") + layout_name(layout) + ")";
    return Status::error(StatusCode::kErrorLeadingDimension,
                         where + ": " + ld_name + " must be >= " + (k_contiguous ? "K" : "N") +
                             " (" + ld_name + " " + std::to_string(ld) + " < " +
                             std::to_string(row) + ")");
  }
  return Status::success();
}

/// Checks the scale pointers and count for granularity G: float for all but Mx32, e8m0 for Mx32.
template <class G>
Status validate_scales(Operand op, char const* what, float const* scales, e8m0 const* mx_scales,
                       std::int64_t count, std::int64_t rows, std::int64_t k) {
  std::string const prefix = std::string(operand_name(op)) + " " + G::kName + " " + what;
  if constexpr (kIsMx<G>) {
    if (scales != nullptr) {
      return Status::error(StatusCode::kErrorInvalidArgument,
                           prefix + " must be e8m0: pass mx_scales, not float scales");
    }
    if (mx_scales == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, prefix + ": mx_scales is null");
  } else {
    if (mx_scales != nullptr) {
      return Status::error(
          StatusCode::kErrorInvalidArgument,
          prefix + " must be float: pass scales, not e8m0 mx_scales (e8m0 is for mx32)");
    }
    if (scales == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, prefix + ": scales is null");
  }
  ScaleShape const shape = scale_shape<G>(op, rows, k);
  if (count != shape.size()) {
    return Status::error(StatusCode::kErrorScaleShape, prefix + ": expected " +
                                                           describe_scale_count<G>(op, shape) +
                                                           ", got " + std::to_string(count));
  }
  return Status::success();
}

/// Checks the float amax array (any granularity, Mx32 included: amax is always float).
template <class G>
Status validate_amax_out(Operand op, float const* amax, std::int64_t count, std::int64_t rows,
                         std::int64_t k) {
  std::string const prefix = std::string(operand_name(op)) + " " + G::kName + " amax";
  if (amax == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, prefix + ": amax is null");
  ScaleShape const shape = scale_shape<G>(op, rows, k);
  if (count != shape.size()) {
    std::string desc = describe_scale_count<G>(op, shape);
    if constexpr (kIsMx<G>) desc.replace(desc.find(" e8m0 ("), 7, " floats (");
    return Status::error(StatusCode::kErrorScaleShape,
                         prefix + ": expected " + desc + ", got " + std::to_string(count));
  }
  return Status::success();
}

inline Status validate_q(Operand op, void const* q, std::int64_t rows, std::int64_t k,
                         std::int64_t ldq, LayoutB layout) {
  char const* name = operand_name(op);
  if (q == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, std::string(name) + ": q is null");
  bool const k_contiguous = op == Operand::kA || layout == LayoutB::kNK;
  std::int64_t const row = k_contiguous ? k : rows;
  if (ldq < row) {
    return Status::error(StatusCode::kErrorLeadingDimension,
                         std::string(name) + ": ldq must be >= " + (k_contiguous ? "K" : "N") +
                             " (ldq " + std::to_string(ldq) + " < " + std::to_string(row) + ")");
  }
  return Status::success();
}

inline Status validate_rounding(Operand op, Rounding r) {
  if (r != Rounding::kNearestEven && r != Rounding::kStochastic) {
    return Status::error(StatusCode::kErrorInvalidArgument,
                         std::string(operand_name(op)) +
                             ": rounding must be kNearestEven or kStochastic (got " +
                             std::to_string(static_cast<int>(r)) + ")");
  }
  return Status::success();
}

/// "A has a non-finite value (nan) at row 3, k 7: quantization needs finite input".
inline Status non_finite_input(Operand op, float value, std::int64_t r, std::int64_t k) {
  std::string const v = value != value ? "nan" : (value > 0 ? "+inf" : "-inf");
  std::string const where = op == Operand::kA
                                ? "row " + std::to_string(r) + ", k " + std::to_string(k)
                                : "n " + std::to_string(r) + ", k " + std::to_string(k);
  return Status::error(StatusCode::kErrorInvalidArgument,
                       std::string(operand_name(op)) + " has a non-finite value (" + v + ") at " +
                           where + ": quantization needs finite input");
}

/// "A blockwise: amax[3] is nan: no scale can be formed from a non-finite amax".
template <class G>
Status non_finite_amax(Operand op, float value, std::int64_t index) {
  std::string const v = value != value ? "nan" : "inf";
  return Status::error(StatusCode::kErrorInvalidArgument,
                       std::string(operand_name(op)) + " " + G::kName + ": amax[" +
                           std::to_string(index) + "] is " + v +
                           ": no scale can be formed from a non-finite amax");
}

}  // namespace detail

/// Validation of each entry point (also used by the GPU launchers).
template <class G>
Status validate_args(AmaxAArgs const& a) {
  FP8GEMM_RETURN_IF_ERROR(
      detail::validate_operand(Operand::kA, a.x, a.m, a.k, a.lda, LayoutB::kNK, "lda"));
  return detail::validate_amax_out<G>(Operand::kA, a.amax, a.amax_count, a.m, a.k);
}

template <class G>
Status validate_args(AmaxBArgs const& b) {
  FP8GEMM_RETURN_IF_ERROR(
      detail::validate_operand(Operand::kB, b.x, b.n, b.k, b.ldb, b.layout, "ldb"));
  return detail::validate_amax_out<G>(Operand::kB, b.amax, b.amax_count, b.n, b.k);
}

/// Checks pointers and scale type only: the count is the caller's (any count >= 1).
template <class G>
Status validate_args(ScalesFromAmaxArgs const& s) {
  std::string const prefix =
      std::string(detail::operand_name(s.operand)) + " " + G::kName + " scales";
  if (s.amax == nullptr)
    return Status::error(StatusCode::kErrorNullPointer, prefix + ": amax is null");
  if (s.count < 1) {
    return Status::error(StatusCode::kErrorInvalidSize,
                         prefix + ": count must be >= 1 (got " + std::to_string(s.count) + ")");
  }
  if constexpr (detail::kIsMx<G>) {
    if (s.scales != nullptr) {
      return Status::error(StatusCode::kErrorInvalidArgument,
                           prefix + " must be e8m0: pass mx_scales, not float scales");
    }
    if (s.mx_scales == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, prefix + ": mx_scales is null");
  } else {
    if (s.mx_scales != nullptr) {
      return Status::error(
          StatusCode::kErrorInvalidArgument,
          prefix + " must be float: pass scales, not e8m0 mx_scales (e8m0 is for mx32)");
    }
    if (s.scales == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, prefix + ": scales is null");
  }
  return Status::success();
}

template <class G, class T>
Status validate_args(QuantizeAArgs<T> const& a) {
  FP8GEMM_RETURN_IF_ERROR(
      detail::validate_operand(Operand::kA, a.x, a.m, a.k, a.lda, LayoutB::kNK, "lda"));
  FP8GEMM_RETURN_IF_ERROR(detail::validate_q(Operand::kA, a.q, a.m, a.k, a.ldq, LayoutB::kNK));
  if (a.scale_ld != 0) {
    std::string const prefix = std::string("A ") + G::kName + " scales: scale_ld ";
    if constexpr (!IsBlockwise<G>::value)
      return Status::error(StatusCode::kErrorScaleShape,
                           prefix + "(a K-block-major layout) is for Blockwise scales: leave it 0");
    ScaleShape const shape = scale_shape<G>(Operand::kA, a.m, a.k);
    if (a.scale_ld < shape.rows)
      return Status::error(StatusCode::kErrorScaleShape,
                           prefix + "must be >= the " + std::to_string(shape.rows) +
                               " scale rows, got " + std::to_string(a.scale_ld));
    std::int64_t const span = (shape.cols - 1) * a.scale_ld + shape.rows;
    if (a.scales == nullptr)
      return Status::error(StatusCode::kErrorNullPointer, prefix + "given, scales is null");
    if (a.mx_scales != nullptr || a.scale_count < span)
      return Status::error(StatusCode::kErrorScaleShape,
                           prefix + std::to_string(a.scale_ld) + ": " + std::to_string(shape.cols) +
                               " K blocks of " + std::to_string(shape.rows) + " rows reach " +
                               std::to_string(span) + " floats, scale_count is " +
                               std::to_string(a.scale_count));
  } else {
    FP8GEMM_RETURN_IF_ERROR(detail::validate_scales<G>(Operand::kA, "scales", a.scales, a.mx_scales,
                                                       a.scale_count, a.m, a.k));
  }
  return detail::validate_rounding(Operand::kA, a.rounding);
}

template <class G, class T>
Status validate_args(QuantizeBArgs<T> const& b) {
  FP8GEMM_RETURN_IF_ERROR(
      detail::validate_operand(Operand::kB, b.x, b.n, b.k, b.ldb, b.layout, "ldb"));
  FP8GEMM_RETURN_IF_ERROR(detail::validate_q(Operand::kB, b.q, b.n, b.k, b.ldq, b.layout));
  FP8GEMM_RETURN_IF_ERROR(detail::validate_scales<G>(Operand::kB, "scales", b.scales, b.mx_scales,
                                                     b.scale_count, b.n, b.k));
  return detail::validate_rounding(Operand::kB, b.rounding);
}

}  // namespace fp8gemm
