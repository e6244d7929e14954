// SPDX-License-Identifier: MIT
/// Scale granularities (compile-time tags) and where their scales live in memory. Shared by the
/// quantizers, the GEMM and the FP64 reference.
///
/// Convention (everywhere in fp8gemm): the dequant scale is s = amax / fmt_max, a value is
/// quantized as q = fp8(x / s) and dequantized as x ~ q * s, so C = (s_a (x) s_b) * (A_q B_q).
///
/// Operands: A is M x K; B is logically K x N (stored N x K or K x N, see Layout). Scale arrays:
///   PerTensor            float[1]
///   PerChannel           A: float[M] (one per row of A);  B: float[N] (one per column of C)
///   Blockwise<bm,bn,bk>  A: float[ceil(M/bm)][ceil(K/bk)]; B: float[ceil(N/bn)][ceil(K/bk)]
///   Mx32                 A: e8m0[M][ceil(K/32)];            B: e8m0[N][ceil(K/32)]
/// (row-major, both).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fp8gemm {

/// Which GEMM operand a scale belongs to.
enum class Operand { kA, kB };

/// How B (logically K x N) is stored. A is always M x K with K contiguous; C is M x N, N
/// contiguous.
enum class LayoutB {
  kNK,  ///< B stored N x K, K contiguous (ldb >= K): the "mk_nk_mn" GEMM
  kKN,  ///< B stored K x N, N contiguous (ldb >= N): the "mk_kn_mn" GEMM
};

inline char const* layout_name(LayoutB b) {
  return b == LayoutB::kNK ? "mk_nk_mn" : "mk_kn_mn";
}

/// One float scale for the whole operand. Applied in the epilogue.
struct PerTensor {
  static constexpr char const* kName = "per_tensor";
  static constexpr int kBlockK = 0;  // 0: not blocked along K (applied after the K loop)
};

/// One float scale per row of A and per column of B (per output channel). Applied in the epilogue.
struct PerChannel {
  static constexpr char const* kName = "per_channel";
  static constexpr int kBlockK = 0;
};

/// One float scale per ABlockM x BlockK block of A and per BBlockN x BlockK block of B (B counted
/// as N x K). Applied inside the K loop: each BlockK slice is accumulated in FP32, then acc +=
/// partial * s_a * s_b. Default: 1 x 128 activations, 128 x 128 weights (DeepSeek-V3 style).
template <int ABlockM = 1, int BBlockN = 128, int BlockK = 128>
struct Blockwise {
  static_assert(ABlockM >= 1 && BBlockN >= 1 && BlockK >= 1, "block shapes must be positive");
  static constexpr char const* kName = "blockwise";
  static constexpr int kABlockM = ABlockM;
  static constexpr int kBBlockN = BBlockN;
  static constexpr int kBlockK = BlockK;
};

/// OCP MX: 32 consecutive K elements share one e8m0 scale (2^(e-127)), for both A and B.
struct Mx32 {
  static constexpr char const* kName = "mx32";
  static constexpr int kABlockM = 1;
  static constexpr int kBBlockN = 1;
  static constexpr int kBlockK = 32;
};

/// True for Blockwise<...> (the mainloop's K-scale-block rule is Blockwise's own).
template <class G>
struct IsBlockwise : std::false_type {};
template <int A, int B, int K>
struct IsBlockwise<Blockwise<A, B, K>> : std::true_type {};

/// Rows x columns of the scale array of one operand; `extent` is M for A and N for B.
struct ScaleShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t size() const { return rows * cols; }
};

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

template <class G>
ScaleShape scale_shape(Operand op, std::int64_t extent, std::int64_t k) {
  if constexpr (std::is_same_v<G, PerTensor>) {
    return {1, 1};
  } else if constexpr (std::is_same_v<G, PerChannel>) {
    return {extent, 1};
  } else {
    int const block = op == Operand::kA ? G::kABlockM : G::kBBlockN;
    return {ceil_div(extent, block), ceil_div(k, G::kBlockK)};
  }
}

}  // namespace fp8gemm
