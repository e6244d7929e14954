// SPDX-License-Identifier: MIT
/// CDNA3 (gfx942) atoms (arch layer): MFMA with FNUZ fp8 operands.
#pragma once

#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// v_mfma_f32_16x16x32_{fp8|bf8}_{fp8|bf8} (gfx942): D[16x16] f32 += A[16x32] * B[32x16], wave64.
/// __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(long a, long b, float4 c, 0, 0, 0) and the
/// fp8_bf8 / bf8_fp8 / bf8_bf8 forms ("fp8" = e4m3fnuz, "bf8" = e5m2fnuz on gfx942).
/// Lane l (AMD matrix instruction calculator, CDNA3):
///   A: one 8-byte chunk, row l%16, k = 8*(l/16) .. +7
///   B: one 8-byte chunk, column l%16, k = 8*(l/16) .. +7
///   D: d_r is row 4*(l/16) + r, column l%16
template <class EA, class EB>
struct Cdna3Mma16x16x32 {
  static_assert((std::is_same_v<EA, e4m3fnuz> || std::is_same_v<EA, e5m2fnuz>) &&
                    (std::is_same_v<EB, e4m3fnuz> || std::is_same_v<EB, e5m2fnuz>),
                "gfx942 MFMA computes FNUZ fp8 (e4m3fnuz / e5m2fnuz): OCP e4m3fn / e5m2 bytes would "
                "be read as different numbers");
  using Arch = Cdna3;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = "cdna3_mfma16x16x32";
  static constexpr int kM = 16, kN = 16, kK = 32;
  static constexpr int kAChunkBytes = 8, kAChunks = 1;
  static constexpr int kBChunkBytes = 8, kBChunks = 1;
  static constexpr int kCRegs = 4;
  /// LDS rows are kBlockK + 8 bytes apart: pitch = 2 * odd dwords (18 for kBlockK = 64) when
  /// kBlockK is a multiple of 16. A ds_read_b64 phase is 16 lanes = rows 0..15 at one k: row r
  /// starts at dword 2 * (odd * r mod 16) (mod 32) plus a constant, 16 distinct even banks, so the
  /// 16 lanes cover the 32 banks exactly once. Rows are then only 8-byte aligned, so tiles are
  /// written with 8-byte stores (their row order: RowMajorTileCopy in tile/global_to_lds.hpp).
  static constexpr int kLdsPadBytes = 8;
  static constexpr int kDefaultPromoteK = 0;  // MFMA accumulates in FP32
  using FragA = Fragment<8>;
  using FragB = Fragment<8>;

  FP8GEMM_HOST_DEVICE static constexpr int a_row(int lane, int) { return lane % 16; }
  FP8GEMM_HOST_DEVICE static constexpr int a_k(int lane, int) { return 8 * (lane / 16); }
  FP8GEMM_HOST_DEVICE static constexpr int b_col(int lane, int) { return lane % 16; }
  FP8GEMM_HOST_DEVICE static constexpr int b_k(int lane, int) { return 8 * (lane / 16); }
  FP8GEMM_HOST_DEVICE static constexpr int c_row(int lane, int r) { return 4 * (lane / 16) + r; }
  FP8GEMM_HOST_DEVICE static constexpr int c_col(int lane, int) { return lane % 16; }

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[kCRegs], FragA const& a, FragB const& b) {
#if defined(FP8GEMM_ARCH_GFX942)
    using float4_t = __attribute__((__vector_size__(4 * sizeof(float)))) float;
    long const av = static_cast<long>(a.w[0]) | (static_cast<long>(a.w[1]) << 32);
    long const bv = static_cast<long>(b.w[0]) | (static_cast<long>(b.w[1]) << 32);
    float4_t c = {d[0], d[1], d[2], d[3]};
    if constexpr (std::is_same_v<EA, e4m3fnuz> && std::is_same_v<EB, e4m3fnuz>) {
      c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(av, bv, c, 0, 0, 0);
    } else if constexpr (std::is_same_v<EA, e4m3fnuz>) {
      c = __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8(av, bv, c, 0, 0, 0);
    } else if constexpr (std::is_same_v<EB, e4m3fnuz>) {
      c = __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8(av, bv, c, 0, 0, 0);
    } else {
      c = __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(av, bv, c, 0, 0, 0);
    }
    d[0] = c[0], d[1] = c[1], d[2] = c[2], d[3] = c[3];
#elif defined(FP8GEMM_EMULATOR)
    emulate_mma<emu::MfmaF32_16x16x32F8, EA, EB>(d, a, b);
#elif defined(FP8GEMM_DEVICE_PASS)
    __builtin_trap();  // not gfx942: Gemm::can_implement refuses this case
#else
    (void)d, (void)a, (void)b;
#endif
  }
};

}  // namespace fp8gemm::arch
