// SPDX-License-Identifier: MIT
/// CDNA4 (gfx950) atoms (arch layer): the full-rate FP8 MFMA with OCP operands, 16x16x128 and
/// 32x32x64, unscaled or with hardware MX-32 (E8M0) scales.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// v_mfma_scale_f32_{16x16x128|32x32x64}_f8f6f4 with FP8 operands (gfx950): D[S x S] f32 +=
/// A[S x K] * B[K x S], wave64, S = kShape (16 or 32), K = 2048 / S.
/// __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(int32x8 a, int32x8 b, float4 c, Atype, Btype,
/// opsel_a, scale_a, opsel_b, scale_b) (32x32x64: float16 c): type 0 = E4M3 (e4m3fn), 1 = E5M2;
/// constant-zero scale operands, which clang folds into the unscaled v_mfma_f32_*_f8f6f4. The K=32
/// fp8 MFMA runs at half rate on gfx950: the gfx950 policies use these atoms.
/// Lane l, g = l / S, j = 0..15, FP8 operands (from the load code of AMD's "FP8 GEMM Optimization
/// on AMD CDNA4" blog and HipKittens' MI355X kernels for 16x16x128, of AMD's "Matrix Core
/// Programming on CDNA3/CDNA4" blog for 32x32x64; the emulator's table,
/// arch/emu/matrix_semantics.hpp, is written from AMD's ISA emulator and ISA guide instead):
///   A: row l%S; chunk c = 0, 1 (bytes 16c .. 16c+15) holds k = 16g + c*K/2 + j, i.e. two 16-byte
///      reads at k0 and k0 + K/2 (K/2 = 64 for 16x16x128, 32 for 32x32x64)
///   B: the same with column l%S
///   D: S = 16: d_r is row 4g + r, column l%16; S = 32: row 8*(r/4) + 4g + r%4, column l%32
///   MX (CDNA4 ISA guide, section 7.2.1): the E8M0 byte in lane r + S*b scales row (column) r's
///      products for k = 32b .. 32b+31, b = 0 .. K/32-1. Those are NOT the 32 bytes lane r + S*b
///      holds: the scale association is by lane index, the data association by the chunks above.
/// Reading "32 contiguous K per lane" (composable_kernel's warp-gemm attributes) gives the same
/// unscaled product (A and B share the K permutation) but applies every MX scale to the wrong K
/// values. tests/emulator/mfma_layout_test.cpp pins these facts from AMD's sources and shows that
/// the contiguous layout fails an MX-32 product.
template <int kShape, class EA, class EB>
struct Cdna4MmaFp8 {
  static_assert(kShape == 16 || kShape == 32, "gfx950 f8f6f4 MFMA comes as 16x16x128 and 32x32x64");
  static_assert((std::is_same_v<EA, e4m3fn> ||
                 std::is_same_v<EA, e5m2>)&&(std::is_same_v<EB, e4m3fn> ||
                                             std::is_same_v<EB, e5m2>),
                "gfx950 MFMA computes OCP fp8 (e4m3fn / e5m2): FNUZ e4m3fnuz / e5m2fnuz bytes "
                "would be read as different numbers");
  using Arch = Cdna4;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = kShape == 16 ? "cdna4_mfma16x16x128" : "cdna4_mfma32x32x64";
  static constexpr int kM = kShape, kN = kShape, kK = 2048 / kShape;
  static constexpr int kAChunkBytes = 16, kAChunks = 2;
  static constexpr int kBChunkBytes = 16, kBChunks = 2;
  static constexpr int kCRegs = kShape * kShape / 64;
  static constexpr int kThreads = 64;  // one wave
  static constexpr int kLdsReadBytes =
      16;  // ds_read_b128 per chunk (tile/lds_layout.hpp pads by it)
  static constexpr int kDefaultPromoteK = 0;   // MFMA accumulates in FP32
  static constexpr bool kHardwareMx32 = true;  // Mx32 scales go into the instruction
  using FragA = Fragment<32>;
  using FragB = Fragment<32>;

  FP8GEMM_HOST_DEVICE static constexpr int a_row(int lane, int) { return lane % kShape; }
  FP8GEMM_HOST_DEVICE static constexpr int a_k(int lane, int c) {
    return 16 * (lane / kShape) + c * (kK / 2);
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_col(int lane, int) { return lane % kShape; }
  FP8GEMM_HOST_DEVICE static constexpr int b_k(int lane, int c) {
    return 16 * (lane / kShape) + c * (kK / 2);
  }
  FP8GEMM_HOST_DEVICE static constexpr int c_row(int lane, int r) {
    return kShape == 16 ? 4 * (lane / 16) + r : 8 * (r / 4) + 4 * (lane / 32) + r % 4;
  }
  FP8GEMM_HOST_DEVICE static constexpr int c_col(int lane, int) { return lane % kShape; }

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[kCRegs], FragA const& a, FragB const& b) {
    mma_impl</*kScaled=*/false>(d, a, b, 0, 0);
  }

  /// d += (a * 2^(scale_a - 127)) * (b * 2^(scale_b - 127)), one E8M0 byte per lane: lane l's byte
  /// scales row (column) l%S for k = 32*(l/S) .. +31 (see the layout above).
  FP8GEMM_DEVICE static void mma_scaled(float (&d)[kCRegs], FragA const& a, FragB const& b,
                                        std::uint8_t scale_a, std::uint8_t scale_b) {
    mma_impl</*kScaled=*/true>(d, a, b, scale_a, scale_b);
  }
  /// The same with each E8M0 byte in bits 7..0 of a 32-bit register, as the instruction takes it
  /// (op_sel 0 selects byte 0; bits 31..8 are not read), so a zero-extended byte load feeds it
  /// without a widening instruction.
  FP8GEMM_DEVICE static void mma_scaled_byte0(float (&d)[kCRegs], FragA const& a, FragB const& b,
                                              std::uint32_t scale_a_word,
                                              std::uint32_t scale_b_word) {
    mma_impl</*kScaled=*/true>(d, a, b, scale_a_word, scale_b_word);
  }

 private:
  template <bool kScaled>
  FP8GEMM_DEVICE static void mma_impl(float (&d)[kCRegs], FragA const& a, FragB const& b,
                                      std::uint32_t scale_a, std::uint32_t scale_b) {
#if defined(FP8GEMM_ARCH_GFX950)
    using int8_t_ = __attribute__((__vector_size__(8 * sizeof(int)))) int;
    using acc_t = __attribute__((__vector_size__(kCRegs * sizeof(float)))) float;
    int8_t_ av, bv;
    for (int i = 0; i < 8; ++i) av[i] = static_cast<int>(a.w[i]), bv[i] = static_cast<int>(b.w[i]);
    acc_t c;
    for (int r = 0; r < kCRegs; ++r) c[r] = d[r];
    constexpr int kTypeA = std::is_same_v<EA, e4m3fn> ? 0 : 1;
    constexpr int kTypeB = std::is_same_v<EB, e4m3fn> ? 0 : 1;
    int const sa = kScaled ? static_cast<int>(scale_a) : 0;
    int const sb = kScaled ? static_cast<int>(scale_b) : 0;
    if constexpr (kShape == 16) {
      if constexpr (kScaled) {
        c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, sa, 0,
                                                             sb);
      } else {
        c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, 0, 0, 0);
      }
    } else {
      if constexpr (kScaled) {
        c = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, sa, 0,
                                                            sb);
      } else {
        c = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(av, bv, c, kTypeA, kTypeB, 0, 0, 0, 0);
      }
    }
    for (int r = 0; r < kCRegs; ++r) d[r] = c[r];
#elif defined(FP8GEMM_EMULATOR)
    using Semantics = std::conditional_t<kShape == 16, emu::MfmaScaleF32_16x16x128F8,
                                         emu::MfmaScaleF32_32x32x64F8>;
    if constexpr (kScaled) {
      emulate_mma_scaled<Semantics, EA, EB>(d, a, b, static_cast<std::uint8_t>(scale_a),
                                            static_cast<std::uint8_t>(scale_b));
    } else {
      emulate_mma<Semantics, EA, EB>(d, a, b);
    }
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)d, (void)a, (void)b, (void)scale_a, (void)scale_b;
    FP8GEMM_DEVICE_TRAP();  // not gfx950: Gemm::can_implement refuses this case
#else
    (void)d, (void)a, (void)b, (void)scale_a, (void)scale_b;
#endif
  }
};

template <class EA, class EB>
using Cdna4Mma16x16x128 = Cdna4MmaFp8<16, EA, EB>;
template <class EA, class EB>
using Cdna4Mma32x32x64 = Cdna4MmaFp8<32, EA, EB>;

}  // namespace fp8gemm::arch
