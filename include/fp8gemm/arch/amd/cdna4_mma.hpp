// SPDX-License-Identifier: MIT
/// CDNA4 (gfx950) atoms (arch layer): the full-rate K=128 FP8 MFMA with OCP operands.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// v_mfma_scale_f32_16x16x128_f8f6f4 with FP8 operands and unit scales (gfx950): D[16x16] f32 +=
/// A[16x128] * B[128x16], wave64. __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(int32x8 a,
/// int32x8 b, float4 c, Atype, Btype, 0, scale_a, 0, scale_b): type 0 = E4M3 (e4m3fn), 1 = E5M2;
/// constant-zero scale operands, which clang folds into the unscaled v_mfma_f32_16x16x128_f8f6f4. The K=32 fp8 MFMA runs at half rate on gfx950: the
/// default gfx950 policies use this atom.
/// Lane l, g = l/16 (composable_kernel warp-gemm attributes; Modular's MI355X docs):
///   A: 32 contiguous k-bytes of row l%16, k = 32g .. +31, read as two 16-byte chunks (c = 0, 1)
///   B: the same with column l%16
///   D: d_r is row 4g + r, column l%16
///   MX: the lane's E8M0 scale byte covers its 32 k values (one MX-32 block)
/// AMD's MI355X FP8 GEMM blog and HipKittens load the unscaled form as k = 16g.. and 64+16g..;
/// that is the same product (A and B share the K permutation), but not the same MX scaling: the
/// scaled path follows CK/Modular and is the first thing to validate on MI355X hardware.
template <class EA, class EB>
struct Cdna4Mma16x16x128 {
  static_assert((std::is_same_v<EA, e4m3fn> || std::is_same_v<EA, e5m2>) &&
                    (std::is_same_v<EB, e4m3fn> || std::is_same_v<EB, e5m2>),
                "gfx950 MFMA computes OCP fp8 (e4m3fn / e5m2)");
  using Arch = Cdna4;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = "cdna4_mfma16x16x128";
  static constexpr int kM = 16, kN = 16, kK = 128;
  static constexpr int kAChunkBytes = 16, kAChunks = 2;
  static constexpr int kBChunkBytes = 16, kBChunks = 2;
  static constexpr int kCRegs = 4;
  /// LDS rows are kBlockK + 16 bytes apart: for kBlockK = 128 the pitch is 36 dwords, and a
  /// ds_read_b128 phase (16 lanes = rows 0..15 at one k) starts rows at 36r mod 64 = 16 distinct
  /// multiples of 4: all 64 banks exactly once.
  static constexpr int kLdsPadBytes = 16;
  static constexpr int kDefaultPromoteK = 0;  // MFMA accumulates in FP32
  static constexpr bool kHardwareMx32 = true;  // Mx32 scales go into the instruction
  using FragA = Fragment<32>;
  using FragB = Fragment<32>;

  FP8GEMM_HOST_DEVICE static constexpr int a_row(int lane, int) { return lane % 16; }
  FP8GEMM_HOST_DEVICE static constexpr int a_k(int lane, int c) { return 32 * (lane / 16) + 16 * c; }
  FP8GEMM_HOST_DEVICE static constexpr int b_col(int lane, int) { return lane % 16; }
  FP8GEMM_HOST_DEVICE static constexpr int b_k(int lane, int c) { return 32 * (lane / 16) + 16 * c; }
  FP8GEMM_HOST_DEVICE static constexpr int c_row(int lane, int r) { return 4 * (lane / 16) + r; }
  FP8GEMM_HOST_DEVICE static constexpr int c_col(int lane, int) { return lane % 16; }

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[kCRegs], FragA const& a, FragB const& b) {
    mma_impl</*kScaled=*/false>(d, a, b, 0, 0);
  }

  /// d += (a * 2^(scale_a - 127)) * (b * 2^(scale_b - 127)), scales per lane (E8M0 bytes).
  FP8GEMM_DEVICE static void mma_scaled(float (&d)[kCRegs], FragA const& a, FragB const& b,
                                        std::uint8_t scale_a, std::uint8_t scale_b) {
    mma_impl</*kScaled=*/true>(d, a, b, scale_a, scale_b);
  }

 private:
  template <bool kScaled>
  FP8GEMM_DEVICE static void mma_impl(float (&d)[kCRegs], FragA const& a, FragB const& b,
                                      std::uint8_t scale_a, std::uint8_t scale_b) {
#if defined(FP8GEMM_ARCH_GFX950)
    using int8_t_ = __attribute__((__vector_size__(8 * sizeof(int)))) int;
    using float4_t = __attribute__((__vector_size__(4 * sizeof(float)))) float;
    int8_t_ av, bv;
    for (int i = 0; i < 8; ++i) av[i] = static_cast<int>(a.w[i]), bv[i] = static_cast<int>(b.w[i]);
    float4_t c = {d[0], d[1], d[2], d[3]};
    constexpr int kTypeA = std::is_same_v<EA, e4m3fn> ? 0 : 1;
    constexpr int kTypeB = std::is_same_v<EB, e4m3fn> ? 0 : 1;
    if constexpr (kScaled) {
      c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, scale_a, 0, scale_b);
    } else {
      c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, 0, 0, 0);
    }
    d[0] = c[0], d[1] = c[1], d[2] = c[2], d[3] = c[3];
#elif defined(FP8GEMM_EMULATOR)
    if constexpr (kScaled) {
      emulate_mma_scaled<emu::MfmaScaleF32_16x16x128F8, EA, EB>(d, a, b, scale_a, scale_b);
    } else {
      emulate_mma<emu::MfmaScaleF32_16x16x128F8, EA, EB>(d, a, b);
    }
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)scale_a, (void)scale_b;
    __builtin_trap();  // not gfx950: Gemm::can_implement refuses this case
#else
    (void)d, (void)a, (void)b, (void)scale_a, (void)scale_b;
#endif
  }
};

}  // namespace fp8gemm::arch
