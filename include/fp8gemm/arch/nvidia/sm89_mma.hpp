// SPDX-License-Identifier: MIT
/// The NVIDIA atoms (arch layer): Sm89Mma16x8x32, the native fp8 mma.sync (sm_89; ptxas emulates it
/// on Hopper), and Sm90MmaFp8ViaF16, Hopper's: the same fragments through f16 MMAs.
#pragma once

#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// mma.sync.aligned.m16n8k32.row.col.f32.{e4m3|e5m2}.{e4m3|e5m2}.f32: D[16x8] f32 += A[16x32] *
/// B[32x8], one warp. Lane l, g = l/4, t = l%4 (PTX ISA, "Matrix Fragments for mma.m16n8k32"):
///   A: a0..a3, 4 k-bytes each: a_c holds row g + 8*(c%2), k = 4t + 16*(c/2) .. +3
///   B: b0..b1, 4 k-bytes each: b_c holds column g,        k = 4t + 16*c .. +3
///   D: d_r is row g + 8*(r/2), column 2t + r%2
template <class EA, class EB>
struct Sm89Mma16x8x32 {
  static_assert((std::is_same_v<EA, e4m3fn> ||
                 std::is_same_v<EA, e5m2>)&&(std::is_same_v<EB, e4m3fn> ||
                                             std::is_same_v<EB, e5m2>),
                "mma.sync fp8 takes OCP e4m3fn or e5m2 operands only");
  using Arch = Sm90;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = "sm89_mma16x8x32";
  static constexpr int kM = 16, kN = 8, kK = 32;
  static constexpr int kAChunkBytes = 4, kAChunks = 4;
  static constexpr int kBChunkBytes = 4, kBChunks = 2;
  static constexpr int kCRegs = 4;
  static constexpr int kThreads = 32;  // one warp
  /// LDS reads: ldmatrix, a 16-byte row per lane (tile/lds_layout.hpp pads by it; the emulator
  /// reads the same bytes as 4-byte chunks). Rows must be 16-byte aligned: a pitch of BlockK + 16.
  static constexpr int kLdsReadBytes = 16;
  static constexpr bool kHasFragmentLoads = true;
  /// NOTE: Hopper's FP8 tensor-core accumulation is reported to keep fewer than 24 mantissa bits
  /// (DeepSeek-V3, for WGMMA), so by default partial sums are promoted into FP32 registers every
  /// 128 K. (On sm_90 ptxas emulates this instruction; Sm90MmaFp8ViaF16 below is Hopper's atom.)
  static constexpr int kDefaultPromoteK = 128;
  using FragA = Fragment<kAChunkBytes * kAChunks>;
  using FragB = Fragment<kBChunkBytes * kBChunks>;

  FP8GEMM_HOST_DEVICE static constexpr int a_row(int lane, int c) { return lane / 4 + 8 * (c % 2); }
  FP8GEMM_HOST_DEVICE static constexpr int a_k(int lane, int c) {
    return 4 * (lane % 4) + 16 * (c / 2);
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_col(int lane, int) { return lane / 4; }
  FP8GEMM_HOST_DEVICE static constexpr int b_k(int lane, int c) { return 4 * (lane % 4) + 16 * c; }
  FP8GEMM_HOST_DEVICE static constexpr int c_row(int lane, int r) { return lane / 4 + 8 * (r / 2); }
  FP8GEMM_HOST_DEVICE static constexpr int c_col(int lane, int r) { return 2 * (lane % 4) + r % 2; }

  /// A fragment of the atom at (row0, k0) of an LDS tile laid out as Layout.
  /// ldmatrix.sync.aligned.m8n8.x4.shared.b16: matrix q (= register a_q) is rows row0 + 8*(q%2)
  /// .. +7 at k0 + 16*(q/2), 16 bytes per row; lane l addresses row l%8 of matrix l/8 and receives
  /// row l/4, bytes 4*(l%4) .. +3 of each matrix: exactly a0..a3 above. Rows must be 16-byte
  /// aligned.
  template <class Layout>
  FP8GEMM_DEVICE static void load_a(FragA& f, std::uint8_t const* lds, int lane, int row0, int k0) {
#if defined(FP8GEMM_ARCH_SM89_PLUS)
    int const q = lane / 8;
    auto const addr = static_cast<unsigned>(__cvta_generic_to_shared(
        lds + Layout::offset(row0 + lane % 8 + 8 * (q % 2), k0 + 16 * (q / 2))));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(f.w[0]), "=r"(f.w[1]), "=r"(f.w[2]), "=r"(f.w[3])
                 : "r"(addr));
#else
    load_fragment_a_by_chunks<Sm89Mma16x8x32, Layout>(f, lds, lane, row0, k0);
#endif
  }

  /// B fragment (LDS tile N x K): ldmatrix .x2, matrix q = columns col0 .. +7 at k0 + 16q; lanes
  /// 0..15 give the addresses (lanes 16..31 repeat them), lane l receives column l/4, bytes
  /// 4*(l%4) .. +3: b0, b1.
  template <class Layout>
  FP8GEMM_DEVICE static void load_b(FragB& f, std::uint8_t const* lds, int lane, int col0, int k0) {
#if defined(FP8GEMM_ARCH_SM89_PLUS)
    int const q = (lane / 8) % 2;
    auto const addr = static_cast<unsigned>(
        __cvta_generic_to_shared(lds + Layout::offset(col0 + lane % 8, k0 + 16 * q)));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(f.w[0]), "=r"(f.w[1])
                 : "r"(addr));
#else
    load_fragment_b_by_chunks<Sm89Mma16x8x32, Layout>(f, lds, lane, col0, k0);
#endif
  }

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[kCRegs], FragA const& a, FragB const& b) {
#if defined(FP8GEMM_ARCH_SM89_PLUS)
#define FP8GEMM_SM89_MMA(TA, TB)                                                   \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB                  \
               ".f32 "                                                             \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n" \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                    \
               : "r"(a.w[0]), "r"(a.w[1]), "r"(a.w[2]), "r"(a.w[3]), "r"(b.w[0]), "r"(b.w[1]))
    if constexpr (std::is_same_v<EA, e4m3fn> && std::is_same_v<EB, e4m3fn>) {
      FP8GEMM_SM89_MMA("e4m3", "e4m3");
    } else if constexpr (std::is_same_v<EA, e4m3fn>) {
      FP8GEMM_SM89_MMA("e4m3", "e5m2");
    } else if constexpr (std::is_same_v<EB, e4m3fn>) {
      FP8GEMM_SM89_MMA("e5m2", "e4m3");
    } else {
      FP8GEMM_SM89_MMA("e5m2", "e5m2");
    }
#undef FP8GEMM_SM89_MMA
#elif defined(FP8GEMM_EMULATOR)
    emulate_mma<emu::PtxMmaM16N8K32, EA, EB>(d, a, b);
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)d, (void)a, (void)b;
    FP8GEMM_DEVICE_TRAP();  // compiled for a GPU without fp8 mma.sync: Gemm::can_implement refuses
                            // this case
#else
    (void)d, (void)a, (void)b;
#endif
  }
};

/// Hopper's atom for the portable path (Sm90Default, Sm90SmallM). sm_90 has FP8 only in wgmma; its
/// fp8 mma.sync is emulated by ptxas. This atom keeps Sm89Mma16x8x32's m16n8k32 fragments (lane
/// layout, ldmatrix loaders, LDS padding) and computes them itself: fp8->f16 conversions (exact)
/// and two mma.sync.m16n8k16 f16 MMAs with d as their FP32 accumulator operand.
/// Accumulation: the running sum is added inside the tensor core (d goes back in as C), with the
/// tensor core's adder, which may truncate instead of rounding (Fasi, Higham, Mikaitis, Pranesh,
/// "Numerical behavior of NVIDIA tensor cores", 2021, measured before Hopper: here an assumption,
/// hence a unit roundoff of 2^-23 in the tests' bound). So, as for every Hopper atom, partial sums
/// are promoted into FP32 registers every 128 K by default. FastAccumulation drops the second
/// accumulator set (fewer registers, more blocks per SM; docs/performance.md#sm90-mma-via-f16).
template <class EA, class EB>
struct Sm90MmaFp8ViaF16 : Sm89Mma16x8x32<EA, EB> {
  using Base = Sm89Mma16x8x32<EA, EB>;
  using typename Base::FragA;
  using typename Base::FragB;
  static constexpr char const* kName = "sm90_mma16x8x32_via_f16";
  static constexpr int kDefaultPromoteK = 128;
  static constexpr double kAccumulatorUnitRoundoff = 1.0 / (1 << 23);

  /// d += a * b
  FP8GEMM_DEVICE static void mma(float (&d)[Base::kCRegs], FragA const& a, FragB const& b) {
#if defined(FP8GEMM_ARCH_SM89_PLUS)
    mma_via_f16(d, a, b);
#elif defined(FP8GEMM_EMULATOR)
    emulate_mma<emu::PtxMmaM16N8K32, EA, EB>(d, a, b);
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)d, (void)a, (void)b;
    FP8GEMM_DEVICE_TRAP();  // compiled for a GPU without the fp8->f16 conversions: can_implement
                            // refuses
#else
    (void)d, (void)a, (void)b;
#endif
  }

#if defined(FP8GEMM_ARCH_SM89_PLUS)
  /// Two fp8 (the 16-bit half `h` of w, low byte first) -> f16x2, exact (every e4m3/e5m2 value is
  /// an f16 value); the low byte goes to the low half.
  template <class E>
  FP8GEMM_DEVICE static unsigned to_f16x2(unsigned w, int h) {
    unsigned short const pair = static_cast<unsigned short>(w >> (16 * h));
    unsigned out;
    if constexpr (std::is_same_v<E, e4m3fn>) {
      asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(out) : "h"(pair));
    } else {
      asm("cvt.rn.f16x2.e5m2x2 %0, %1;\n" : "=r"(out) : "h"(pair));
    }
    return out;
  }

  /// ptxas lowers the fp8 mma.sync of Sm89Mma16x8x32 on sm_90 to fp8->f16 conversions, two
  /// FP16 HMMAs and four FP32 adds per call (its HMMAs do not accumulate into d).
  /// Converting here and using d as the MMAs' accumulator saves the adds (the sum is then added
  /// inside the tensor core, see above):
  /// d += A[16x32] B[32x8] as two mma.sync.m16n8k16.f32.f16.f16.f32, K half h = 0, 1.
  /// K order inside a half: this lane's fp8 bytes k = 4t, 4t+1 (low pair of a_c / b_c) fill the
  /// m16n8k16 slots k = 2t, 2t+1 and bytes 4t+2, 4t+3 (high pair) the slots 2t+8, 2t+9 — one
  /// permutation of K, the same for A and B, so every product a_k b_k meets its partner and the sum
  /// is unchanged. m16n8k16 f16 fragments (PTX ISA): A a0 = (row g, k 2t..), a1 = (row g+8, k
  /// 2t..), a2 = (row g, k 2t+8..), a3 = (row g+8, k 2t+8..); B b0 = (k 2t.., col g), b1 = (k
  /// 2t+8.., col g); D as for m16n8k32.
  FP8GEMM_DEVICE static void mma_via_f16(float (&d)[Base::kCRegs], FragA const& a, FragB const& b) {
    FP8GEMM_UNROLL
    for (int h = 0; h < 2; ++h) {
      unsigned const a0 = to_f16x2<EA>(a.w[2 * h], 0), a1 = to_f16x2<EA>(a.w[2 * h + 1], 0);
      unsigned const a2 = to_f16x2<EA>(a.w[2 * h], 1), a3 = to_f16x2<EA>(a.w[2 * h + 1], 1);
      unsigned const b0 = to_f16x2<EB>(b.w[h], 0), b1 = to_f16x2<EB>(b.w[h], 1);
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
#endif
};

}  // namespace fp8gemm::arch
