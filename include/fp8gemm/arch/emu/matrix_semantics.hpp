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
  static Coord b(int lane, int byte) { return {lane / 4, 4 * (lane % 4) + 16 * (byte / 4) + byte % 4}; }
  /// c0, c1: row g; c2, c3: row g + 8; col 2t + (i & 1).
  static Coord c(int lane, int reg) { return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2}; }
};

/// AMD matrix instruction calculator (CDNA3), v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}, wave64:
/// A: i = lane%16, k = 8*(lane/16) + 4*GPR + byte; B: j = lane%16, same k; D: j = lane%16,
/// i = 4*(lane/16) + GPR.
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
  static Coord c(int lane, int reg) { return {8 * (reg / 4) + 4 * (lane / 32) + reg % 4, lane % 32}; }
};

/// CDNA4 v_mfma_scale_f32_16x16x128_f8f6f4 with FP8 operands (composable_kernel warp-gemm
/// attributes kABKLane = 4, kABKPerLane = 32; Modular's MI355X docs: "lane_k_group = lane/16, which
/// 32-element K group", one E8M0 scale per lane): lane l holds row l%16 and k = 32*(l/16) + byte,
/// and its scale byte multiplies those 32 products by 2^(scale - 127). AMD's MI355X FP8 GEMM blog
/// and HipKittens load the unscaled form as two 16-byte chunks (k = 16g.. and 64+16g..), which
/// yields the same product because A and B share the K permutation; only the scaled form can tell
/// the two apart, so the MX-32 path is the one to validate first on hardware. D as 16x16x32.
struct MfmaScaleF32_16x16x128F8 {
  static constexpr int kM = 16, kN = 16, kK = 128, kWave = 64, kABytes = 32, kBBytes = 32, kCRegs = 4;
  static Coord a(int lane, int byte) { return {lane % 16, 32 * (lane / 16) + byte}; }
  static Coord b(int lane, int byte) { return a(lane, byte); }
  static Coord c(int lane, int reg) { return {4 * (lane / 16) + reg, lane % 16}; }
  /// The lane whose scale byte applies to A element (row, k) / B element (col, k).
  static int scale_lane(int row, int k) { return row + 16 * (k / 32); }
};

/// CDNA4 v_mfma_scale_f32_32x32x64_f8f6f4, FP8 operands (composable_kernel: kABKLane = 2,
/// kABKPerLane = 32): lane l holds row l%32 and k = 32*(l/32) + byte, and its scale byte covers
/// those 32 k values. (AMD's matrix-core blog loads the unscaled form as k = 16h.. and 32+16h..,
/// h = l/32: the same product, as for 16x16x128.) D as 32x32x16.
struct MfmaScaleF32_32x32x64F8 {
  static constexpr int kM = 32, kN = 32, kK = 64, kWave = 64, kABytes = 32, kBBytes = 32, kCRegs = 16;
  static Coord a(int lane, int byte) { return {lane % 32, 32 * (lane / 32) + byte}; }
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
      if (!a_set[r][k] || !b_set[r % kN][k]) throw std::logic_error("matrix instruction with a partial wave");
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
