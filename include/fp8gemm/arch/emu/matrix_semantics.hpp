// SPDX-License-Identifier: MIT
/// What each matrix instruction computes, written from the vendors' documentation independently of
/// the atoms' fragment mappings: (lane, operand byte) -> matrix element. The host emulator executes
/// every matrix instruction from these tables, so an atom whose fragment loads disagree with the
/// hardware layout produces a wrong GEMM in the emulator too (tests/emulator check both).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::emu {

/// Row/column of one element: for A (m, k); for B (n, k) — B is addressed N x K; for D (m, n).
struct Coord {
  int row;
  int col;
};

/// PTX ISA, "Matrix Fragments for mma.m16n8k32" (.e4m3/.e5m2, row.col), warp of 32.
/// g = lane/4 (groupID), t = lane%4 (threadID_in_group); A regs a0..a3, B regs b0..b1, 4 B each.
struct PtxMmaM16N8K32 {
  static constexpr int kM = 16, kN = 8, kK = 32, kWave = 32, kABytes = 16, kBBytes = 8, kCRegs = 4;
  /// a_i (i = byte): row g + 8 for a1, a3; k = 4t + (i & 3), +16 for a2, a3.
  static Coord a(int lane, int byte) {
    int const reg = byte / 4;
    return {lane / 4 + 8 * (reg % 2), 4 * (lane % 4) + 16 * (reg / 2) + byte % 4};
  }
  /// b_i: n = g; k = 4t + (i & 3), +16 for b1.
  static Coord b(int lane, int byte) {
    return {lane / 4, 4 * (lane % 4) + 16 * (byte / 4) + byte % 4};
  }
  /// c0, c1: row g; c2, c3: row g + 8; col 2t + (i & 1).
  static Coord c(int lane, int reg) { return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2}; }
};

/// AMD matrix instruction calculator (ROCm/amd_matrix_instruction_calculator, CDNA3),
/// v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}, wave64: A: i = lane%16, k = 8*(lane/16) + 4*GPR + byte;
/// B: j = lane%16, same k; D: j = lane%16, i = 4*(lane/16) + GPR.
struct MfmaF32_16x16x32F8 {
  static constexpr int kM = 16, kN = 16, kK = 32, kWave = 64, kABytes = 8, kBBytes = 8, kCRegs = 4;
  static Coord a(int lane, int byte) { return {lane % 16, 8 * (lane / 16) + byte}; }
  static Coord b(int lane, int byte) { return {lane % 16, 8 * (lane / 16) + byte}; }
  static Coord c(int lane, int reg) { return {4 * (lane / 16) + reg, lane % 16}; }
};

/// AMD matrix instruction calculator (CDNA3), v_mfma_f32_32x32x16_{fp8,bf8}_{fp8,bf8}:
/// A: i = lane%32, k = 8*(lane/32) + byte; D (16 GPRs): i = 8*(GPR/4) + 4*(lane/32) + GPR%4.
struct MfmaF32_32x32x16F8 {
  static constexpr int kM = 32, kN = 32, kK = 16, kWave = 64, kABytes = 8, kBBytes = 8, kCRegs = 16;
  static Coord a(int lane, int byte) { return {lane % 32, 8 * (lane / 32) + byte}; }
  static Coord b(int lane, int byte) { return {lane % 32, 8 * (lane / 32) + byte}; }
  static Coord c(int lane, int reg) {
    return {8 * (reg / 4) + 4 * (lane / 32) + reg % 4, lane % 32};
  }
};

/// CDNA4 v_mfma_scale_f32_16x16x128_f8f6f4 with FP8 operands, wave64. Sources, each a different
/// reading from the atom's (arch/amd/cdna4_mma.hpp):
///  - operands: AMD's ISA emulator (ROCm/rocm-systems, rocjitsu, shared/mma_exec.h): the scaled
///    f8f6f4 MFMA uses the dense operand layout of the unscaled one, and byte-wide formats with
///    more than 16 K per lane are laid out in 16-element chunks; AMD's "FP8 GEMM Optimization on
///    AMD CDNA4" blog (its load code: k_chunk0 = 16 * (lane / 16), k_chunk1 = k_chunk0 + 64). Lane
///    l holds row l%16; operand byte i < 16 is k = 16*(l/16) + i, byte i >= 16 is k = 64 +
///    16*(l/16) + (i - 16).
///  - scales: CDNA4 ISA guide, section 7.2.1: the E8M0 byte of lane r + 16b multiplies row r's
///    products for k = 32b .. 32b+31.
///  - D: as 16x16x32 (the blog's write-back code).
struct MfmaScaleF32_16x16x128F8 {
  static constexpr int kM = 16, kN = 16, kK = 128, kWave = 64, kABytes = 32, kBBytes = 32,
                       kCRegs = 4;
  static Coord a(int lane, int byte) {
    return {lane % 16, 64 * (byte / 16) + 16 * (lane / 16) + byte % 16};
  }
  static Coord b(int lane, int byte) { return a(lane, byte); }
  static Coord c(int lane, int reg) { return {4 * (lane / 16) + reg, lane % 16}; }
  /// The lane whose scale byte applies to A element (row, k) / B element (col, k).
  static int scale_lane(int row, int k) { return row + 16 * (k / 32); }
};

/// CDNA4 v_mfma_scale_f32_32x32x64_f8f6f4, FP8 operands, wave64. Operands: AMD's ISA emulator (as
/// above) and AMD's "Matrix Core Programming on CDNA3/CDNA4" blog (its 32x32x64 FP8 kernel: bytes
/// 0..15 of lane t are k = 16*(t/32) + 0..15, bytes 16..31 are k = 32 + 16*(t/32) + 0..15, row
/// t%32). Scales: CDNA4 ISA guide, section 7.2.1: the byte of lane r + 32b scales row r's
/// k = 32b .. 32b+31. D as 32x32x16.
struct MfmaScaleF32_32x32x64F8 {
  static constexpr int kM = 32, kN = 32, kK = 64, kWave = 64, kABytes = 32, kBBytes = 32,
                       kCRegs = 16;
  static Coord a(int lane, int byte) {
    return {lane % 32, 32 * (byte / 16) + 16 * (lane / 32) + byte % 16};
  }
  static Coord b(int lane, int byte) { return a(lane, byte); }
  static Coord c(int lane, int reg) { return MfmaF32_32x32x16F8::c(lane, reg); }
  static int scale_lane(int row, int k) { return row + 32 * (k / 32); }
};

/// fp8 byte -> float through a 256-entry table (exact; fp8_to_float is the source of truth).
template <class T>
float decode_fp8(std::uint8_t byte) {
  static float const* const table = [] {
    static float t[256];
    for (int i = 0; i < 256; ++i) t[i] = fp8_to_float(T::from_bits(static_cast<std::uint8_t>(i)));
    return t;
  }();
  return table[byte];
}

/// One lane's operands of one matrix instruction, handed to the wave collective. The E8M0 scale
/// bytes are used by the scaled (MX) instructions only; 127 = 2^0.
struct MmaLaneSlot {
  float* d;
  std::uint8_t const* a;
  std::uint8_t const* b;
  std::uint8_t scale_a = 127;
  std::uint8_t scale_b = 127;
};

/// D += A * B for the whole wave, from all lanes' registers, per the instruction's Semantics.
/// Products of two fp8 values are exact in double; the K-sum is taken in double and D rounded to
/// float once, i.e. at least as accurate as the hardware's FP32 accumulation.
template <class Semantics, class ElementA, class ElementB, bool kScaled = false>
void execute_mma(void** slots, int lanes) {
  constexpr int kM = Semantics::kM, kN = Semantics::kN, kK = Semantics::kK;
  double a[kM][kK];
  double b[kN][kK];
  bool a_set[kM][kK] = {};
  bool b_set[kN][kK] = {};
  for (int lane = 0; lane < lanes; ++lane) {
    auto const* s = static_cast<MmaLaneSlot const*>(slots[lane]);
    for (int i = 0; i < Semantics::kABytes; ++i) {
      Coord const c = Semantics::a(lane, i);
      a[c.row][c.col] = decode_fp8<ElementA>(s->a[i]);
      a_set[c.row][c.col] = true;
    }
    for (int i = 0; i < Semantics::kBBytes; ++i) {
      Coord const c = Semantics::b(lane, i);
      b[c.row][c.col] = decode_fp8<ElementB>(s->b[i]);
      b_set[c.row][c.col] = true;
    }
  }
  for (int r = 0; r < kM; ++r)
    for (int k = 0; k < kK; ++k)
      if (!a_set[r][k] || !b_set[r % kN][k])
        throw std::logic_error("matrix instruction with a partial wave");
  if constexpr (kScaled) {  // A(i, k) *= 2^(scale_a of lane scale_lane(i, k) - 127); B likewise
    for (int r = 0; r < kM; ++r)
      for (int k = 0; k < kK; ++k) {
        auto const* sa = static_cast<MmaLaneSlot const*>(slots[Semantics::scale_lane(r, k)]);
        a[r][k] *= static_cast<double>(fp8_to_float(e8m0::from_bits(sa->scale_a)));
      }
    for (int c = 0; c < kN; ++c)
      for (int k = 0; k < kK; ++k) {
        auto const* sb = static_cast<MmaLaneSlot const*>(slots[Semantics::scale_lane(c, k)]);
        b[c][k] *= static_cast<double>(fp8_to_float(e8m0::from_bits(sb->scale_b)));
      }
  }
  for (int lane = 0; lane < lanes; ++lane) {
    auto const* s = static_cast<MmaLaneSlot const*>(slots[lane]);
    for (int reg = 0; reg < Semantics::kCRegs; ++reg) {
      Coord const c = Semantics::c(lane, reg);
      double sum = s->d[reg];
      for (int k = 0; k < kK; ++k) sum += a[c.row][k] * b[c.col][k];
      s->d[reg] = static_cast<float>(sum);
    }
  }
}

}  // namespace fp8gemm::emu
