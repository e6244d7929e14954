// SPDX-License-Identifier: MIT
/// The fused epilogue (epilogue layer): dequant, bias, activation and output conversion composed in
/// registers before the single store, plus the output amax (any output type) when asked for.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/epilogue/functors.hpp"

namespace fp8gemm {

/// out[m][n] = convert(act(acc[m][n] * s_a[m] * s_b[n] + bias[n]))
/// `acc * s_a * s_b` is the dequant of per-tensor / per-channel scales (K-blocked scales were
/// already applied in the mainloop, and then s_a = s_b = 1 here). ElementC: float, bf16, fp16, or
/// an fp8 format with output dequant scale s_out (q = fp8(y / s_out)); for every ElementC, if
/// `amax` is non-null the kernel atomically folds max|y| over all outputs into *amax (NaN wins).
/// Gemm::run zeroes *amax first; block-level callers zero it themselves.
template <class ElementC, class Activation = Identity>
struct Epilogue {
  using Element = ElementC;
  using Act = Activation;

  struct Params {
    ElementC* c = nullptr;        // [M, N], N contiguous, aligned to ElementC
    std::int64_t ldc = 0;         // elements, >= N
    float const* bias = nullptr;  // [N] or null; 4-byte aligned
    // s_out, fp8 outputs only (q = fp8(y / s_out)); NaN = not set. can_implement refuses it unset
    // for fp8 outputs (rather than silently using 1) and set for the others (stored unscaled).
    float output_scale = std::numeric_limits<float>::quiet_NaN();
    float* amax = nullptr;  // optional, 4-byte aligned: max |y| before quantization
  };

  /// y = act(dequantized + bias[n])
  FP8GEMM_HOST_DEVICE static float compute(Params const& p, float dequantized, int n) {
    float const x = p.bias != nullptr ? dequantized + p.bias[n] : dequantized;
    return Activation::apply(x);
  }

  FP8GEMM_HOST_DEVICE static void store(Params const& p, int m, int n, float y) {
    p.c[m * p.ldc + n] = convert_output<ElementC>(y, p.output_scale);
  }

  /// Two neighbours, C[m][n] and C[m][n + 1], as one access of 2 x sizeof(ElementC) bytes: the
  /// caller checked that the address is aligned to that (pair_stores_aligned).
  struct alignas(2 * sizeof(ElementC)) Pair {
    ElementC v[2];
  };
  FP8GEMM_DEVICE static void store_pair(Params const& p, int m, int n, float y0, float y1) {
    write_pair(p.c + m * p.ldc + n, p, y0, y1);
  }
  /// The bytes of a Pair as one unsigned integer: what write_pair stores, and TmaStoreEpilogue's
  /// st.shared into its staging tile.
  using PairBits =
      std::conditional_t<sizeof(Pair) == 2, std::uint16_t,
                         std::conditional_t<sizeof(Pair) == 4, std::uint32_t, std::uint64_t>>;
  FP8GEMM_DEVICE static PairBits pair_bits(Params const& p, float y0, float y1) {
    if constexpr (std::is_same_v<ElementC, bf16> || std::is_same_v<ElementC, fp16>) {
      return arch::pack_half2<ElementC>(y0, y1);
    } else {
      Pair const v{{convert_output<ElementC>(y0, p.output_scale),
                    convert_output<ElementC>(y1, p.output_scale)}};
      PairBits bits;
      std::memcpy(&bits, &v, sizeof bits);
      return bits;
    }
  }
  /// y0 and y1 converted (pair_bits), as one access at `dst` (aligned to a Pair: store_pair).
  FP8GEMM_DEVICE static void write_pair(void* dst, Params const& p, float y0, float y1) {
    *static_cast<PairBits*>(dst) = pair_bits(p, y0, y1);
  }
  /// Every even column of C starts an aligned pair: ldc even and C aligned to a pair.
  static bool pair_stores_aligned(Params const& p) {
    return p.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % sizeof(Pair) == 0;
  }
};

}  // namespace fp8gemm
