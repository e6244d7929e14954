// SPDX-License-Identifier: MIT
/// CDNA3 (gfx942) atoms (arch layer): MFMA with FNUZ fp8 operands, 16x16x32 and 32x32x16.
#pragma once

#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// v_mfma_f32_{16x16x32|32x32x16}_{fp8|bf8}_{fp8|bf8} (gfx942): D[S x S] f32 += A[S x K] * B[K x
/// S], wave64, S = kShape (16 or 32), K = 512 / S. __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(long
/// a, long b, float4 c, 0, 0, 0), __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(long, long, float16,
/// 0, 0, 0) and the fp8_bf8 / bf8_fp8 / bf8_bf8 forms ("fp8" = e4m3fnuz, "bf8" = e5m2fnuz on
/// gfx942). Lane l (AMD matrix instruction calculator, CDNA3):
///   A: one 8-byte chunk, row l%S, k = 8*(l/S) .. +7
///   B: one 8-byte chunk, column l%S, k = 8*(l/S) .. +7
///   D: S = 16: d_r is row 4*(l/16) + r, column l%16 (4 registers)
///      S = 32: d_r is row 8*(r/4) + 4*(l/32) + r%4, column l%32 (16 registers)
template <int kShape, class EA, class EB>
struct Cdna3MmaFp8 {
  static_assert(kShape == 16 || kShape == 32, "gfx942 fp8 MFMA comes as 16x16x32 and 32x32x16");
  static_assert(
      (std::is_same_v<EA, e4m3fnuz> ||
       std::is_same_v<EA, e5m2fnuz>)&&(std::is_same_v<EB, e4m3fnuz> ||
                                       std::is_same_v<EB, e5m2fnuz>),
      "gfx942 MFMA computes FNUZ fp8 (e4m3fnuz / e5m2fnuz): OCP e4m3fn / e5m2 bytes would "
      "be read as different numbers");
  using Arch = Cdna3;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = kShape == 16 ? "cdna3_mfma16x16x32" : "cdna3_mfma32x32x16";
  static constexpr int kM = kShape, kN = kShape, kK = 512 / kShape;
  static constexpr int kAChunkBytes = 8, kAChunks = 1;
  static constexpr int kBChunkBytes = 8, kBChunks = 1;
  static constexpr int kCRegs = kShape * kShape / 64;
  static constexpr int kThreads = 64;      // one wave
  static constexpr int kLdsReadBytes = 8;  // ds_read_b64 per chunk (tile/lds_layout.hpp pads by it)
  static constexpr int kDefaultPromoteK = 0;  // MFMA accumulates in FP32
  using FragA = Fragment<8>;
  using FragB = Fragment<8>;

  FP8GEMM_HOST_DEVICE static constexpr int a_row(int lane, int) { return lane % kShape; }
  FP8GEMM_HOST_DEVICE static constexpr int a_k(int lane, int) { return 8 * (lane / kShape); }
  FP8GEMM_HOST_DEVICE static constexpr int b_col(int lane, int) { return lane % kShape; }
  FP8GEMM_HOST_DEVICE static constexpr int b_k(int lane, int) { return 8 * (lane / kShape); }
  FP8GEMM_HOST_DEVICE static constexpr int c_row(int lane, int r) {
    return kShape == 16 ? 4 * (lane / 16) + r : 8 * (r / 4) + 4 * (lane / 32) + r % 4;
  }
  FP8GEMM_HOST_DEVICE static constexpr int c_col(int lane, int) { return lane % kShape; }

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[kCRegs], FragA const& a, FragB const& b) {
#if defined(FP8GEMM_ARCH_GFX942)
    using acc_t = __attribute__((__vector_size__(kCRegs * sizeof(float)))) float;
    long const av = static_cast<long>(a.w[0]) | (static_cast<long>(a.w[1]) << 32);
    long const bv = static_cast<long>(b.w[0]) | (static_cast<long>(b.w[1]) << 32);
    acc_t c;
    for (int r = 0; r < kCRegs; ++r) c[r] = d[r];
    constexpr bool kA4 = std::is_same_v<EA, e4m3fnuz>, kB4 = std::is_same_v<EB, e4m3fnuz>;
    if constexpr (kShape == 16) {
      if constexpr (kA4 && kB4)
        c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(av, bv, c, 0, 0, 0);
      else if constexpr (kA4)
        c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8(av, bv, c, 0, 0, 0);
      else if constexpr (kB4)
        c = __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8(av, bv, c, 0, 0, 0);
      else
        c = __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(av, bv, c, 0, 0, 0);
    } else {
      if constexpr (kA4 && kB4)
        c = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(av, bv, c, 0, 0, 0);
      else if constexpr (kA4)
        c = __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(av, bv, c, 0, 0, 0);
      else if constexpr (kB4)
        c = __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8(av, bv, c, 0, 0, 0);
      else
        c = __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(av, bv, c, 0, 0, 0);
    }
    for (int r = 0; r < kCRegs; ++r) d[r] = c[r];
#elif defined(FP8GEMM_EMULATOR)
    using Semantics =
        std::conditional_t<kShape == 16, emu::MfmaF32_16x16x32F8, emu::MfmaF32_32x32x16F8>;
    emulate_mma<Semantics, EA, EB>(d, a, b);
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)d, (void)a, (void)b;
    FP8GEMM_DEVICE_TRAP();  // not gfx942: Gemm::can_implement refuses this case
#else
    (void)d, (void)a, (void)b;
#endif
  }
};

template <class EA, class EB>
using Cdna3Mma16x16x32 = Cdna3MmaFp8<16, EA, EB>;
template <class EA, class EB>
using Cdna3Mma32x32x16 = Cdna3MmaFp8<32, EA, EB>;

}  // namespace fp8gemm::arch
