// SPDX-License-Identifier: MIT
/// The Hopper TMA + WGMMA mainloop's K-blocked scales (mainloop layer): where a consumer thread's
/// A and B scales of a tile start, their load per k-block, and their promotion into the FP32
/// accumulators by the fold-or-twice rule (mainloop/scale_promotion.hpp).
#pragma once

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/mainloop/scale_promotion.hpp"

namespace fp8gemm {

/// A thread's K-block scales for one k-block: per m64 row block its two rows' A scales (rows
/// acc_row(t, 0) and + 8), and the B scales of the tile's column groups. Params: the mainloop's
/// (problem, scale_a, scale_b).
template <class Policy, class Granularity, int kScaleBlockN>
struct WgmmaBlockScales {
  using Atom = typename Policy::Atom;
  static constexpr int kBGroups =
      Policy::kBlockN % kScaleBlockN == 0 ? Policy::kBlockN / kScaleBlockN : 1;
  float sa[Policy::kAtomsM][2];
  float sb[kBGroups];

  /// Where a thread's scales of one tile start, as element offsets into the scale arrays
  /// ([ceil(rows / block rows)][cols = K blocks], row-major; A's may be K-block-major, ScaleView):
  /// k-block kb's are scale_a.data[a[i][h] + kb * ka] and scale_b.data[b[g] + kb]. Computed once
  /// per tile, so a k-block's load is an address add (and one multiply by ka for A's; the index
  /// math with its clamps and 64-bit products was 45 of a k-block's 170 instructions); 32-bit, as
  /// can_implement bounds the arrays below 2^31 elements, to keep the registers for the
  /// accumulators.
  struct Rows {
    int a[Policy::kAtomsM][2];
    int b[kBGroups];
    int ka;  // A's K-block stride: 1 (row-major) or its ld (K-block-major)
  };
  template <class Params>
  FP8GEMM_DEVICE static Rows rows(Params const& p, int m_first, int n0, int t) {
    Rows r;
    r.ka = p.scale_a.k_stride();
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int h = 0; h < 2; ++h) {
        r.a[i][h] = a_row(p, m_first + i * Atom::kM + Atom::acc_row(t, 2 * h));
      }
    }
    FP8GEMM_UNROLL
    for (int g = 0; g < kBGroups; ++g) r.b[g] = b_row(p, n0, g);
    return r;
  }
  /// Where row m's A scales start (a row past M clamped to M - 1: rows past M hold zeros, TMA's
  /// fill, and any valid row's scale serves them). The mainloop's checker reads the same.
  template <class Params>
  FP8GEMM_HOST_DEVICE static int a_row(Params const& p, int m) {
    return p.scale_a.row_start(m < p.problem.m ? m : p.problem.m - 1, Granularity::kABlockM);
  }
  /// Where column group g's B scales start (its first column clamped below N: any valid one
  /// serves the columns past N, whose outputs nothing stores).
  template <class Params>
  FP8GEMM_HOST_DEVICE static int b_row(Params const& p, int n0, int g) {
    int n = n0 + g * kScaleBlockN;
    n = n < p.problem.n ? n : p.problem.n - 1;
    return p.scale_b.row_start(n, kScaleBlockN);
  }

  /// The scale ring (TmaWgmmaMainloop's scale_ring, A's scales K-block-major): with each stage's
  /// A and B tiles the producer copies k-block kb's A scales of the tile's rows [m0, m0 + BlockM)
  /// (contiguous in that layout) and, per column group g, B's scale, into the stage's scale
  /// slots; the consumers read theirs there after the stage's full wait instead of from global
  /// memory. A copy's first element must sit on a 16-byte boundary (TMA's rule for the inner
  /// coordinate: an unaligned one stops the kernel with an illegal instruction), so each copy
  /// starts at the scale's offset rounded down to a multiple of 4 floats and brings 4 more: A's
  /// box is BlockM + 4 floats, B's 4, and the wanted scale sits `shift` = offset % 4 floats in.
  /// A box holds at most 256 elements (TMA), so a 256-row tile's A scales come in two copies of
  /// 128 rows + 4, each into its own part of the slot; both parts have the same shift (the
  /// second copy starts 128 floats, a multiple of 4, after the first).
  /// The copies' aligned 1-D coordinates, as element offsets into the scale arrays, and the
  /// slots' strides in floats (128-byte multiples: TMA's smem alignment):
  static constexpr int kRingCopiesA = Policy::kBlockM > 128 ? Policy::kBlockM / 128 : 1;
  static constexpr int kRingRowsA = Policy::kBlockM / kRingCopiesA;  // rows per copy
  static constexpr int kRingBoxA = kRingRowsA + 4;
  static constexpr int kRingPartA = (kRingBoxA + 31) / 32 * 32;  // [copy c] at c · kRingPartA
  static constexpr int kRingSlotA = kRingCopiesA * kRingPartA;
  static constexpr int kRingBoxB = 4;
  static constexpr int kRingSlotB = 32;
  static_assert(Policy::kBlockM % kRingCopiesA == 0 && kRingBoxA <= 256, "one TMA box per copy");
  /// Copy c's coordinate: rows from m0 + c · kRingRowsA on. A copy whose first row is past M
  /// starts at row M - 1 instead (no box wholly past the array): no thread reads its part, as
  /// every row past M reads row M - 1's scale, which an earlier part holds.
  template <class Params>
  FP8GEMM_HOST_DEVICE static int ring_offset_a(Params const& p, int m0, int kb, int c = 0) {
    int m = m0 + c * kRingRowsA;
    m = c == 0 || m < p.problem.m ? m : p.problem.m - 1;
    return (kb * p.scale_a.k_stride() + p.scale_a.row_start(m, Granularity::kABlockM)) & ~3;
  }
  template <class Params>
  FP8GEMM_HOST_DEVICE static int ring_offset_b(Params const& p, int n0, int g, int kb) {
    return (b_row(p, n0, g) + kb) & ~3;
  }
  /// A thread's rows in the A slot past the tile's first scale, clamped as rows() clamps (a row
  /// past M reads row M - 1's scale, so the warp votes on what it votes on with global loads),
  /// and what a k-block's shifts are computed from: the tile's first A scale at kb = 0 and A's
  /// K-block stride, and each column group's first B scale. Part c of the A slot holds rows
  /// m0 + c · kRingRowsA - shift .. + kRingRowsA + 3, where rows past M hold zeros or whatever
  /// the array has there: tile row d sits at (d / kRingRowsA) · kRingPartA + d % kRingRowsA.
  struct RingRows {
    int a[Policy::kAtomsM][2];
    int a0, ka;
    int b[kBGroups];
  };
  template <class Params>
  FP8GEMM_DEVICE static RingRows ring_rows(Params const& p, int m0, int m_first, int n0, int t) {
    RingRows r;
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      for (int h = 0; h < 2; ++h) {
        int m = m_first + i * Atom::kM + Atom::acc_row(t, 2 * h);
        m = m < p.problem.m ? m : p.problem.m - 1;
        r.a[i][h] = (m - m0) / kRingRowsA * kRingPartA + (m - m0) % kRingRowsA;
      }
    }
    r.a0 = p.scale_a.row_start(m0, Granularity::kABlockM);
    r.ka = p.scale_a.k_stride();
    for (int g = 0; g < kBGroups; ++g) r.b[g] = b_row(p, n0, g);
    return r;
  }
  /// k-block kb's scales from its stage's slots (after the stage's full wait): A's slot of
  /// kRingSlotA floats, B's of kRingSlotB, each read `shift` floats past the copy's start.
  FP8GEMM_DEVICE void load_ring(float const* slot_a, float const (*slot_b)[kRingSlotB],
                                RingRows const& r, int kb) {
    int const shift_a = (kb * r.ka + r.a0) & 3;
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      for (int h = 0; h < 2; ++h) sa[i][h] = arch::load_shared(slot_a + shift_a + r.a[i][h]);
    }
    for (int g = 0; g < kBGroups; ++g) sb[g] = arch::load_shared(&slot_b[g][(r.b[g] + kb) & 3]);
  }

  template <class Params>
  FP8GEMM_DEVICE void load(Params const& p, Rows const& r, int kb) {
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int h = 0; h < 2; ++h) sa[i][h] = p.scale_a.at(r.a[i][h] + kb * r.ka);
    }
    FP8GEMM_UNROLL
    for (int g = 0; g < kBGroups; ++g) sb[g] = p.scale_b.at(r.b[g] + kb);
  }
  /// The same from scratch (host tests).
  template <class Params>
  FP8GEMM_DEVICE void load(Params const& p, int m_first, int n0, int kb, int t) {
    load(p, rows(p, m_first, n0, t), kb);
  }

  using Rule = FoldOrTwice<32>;  // the fold-or-twice rule and the warp's vote
  /// x is a normal FP32 number (the rule's test; three integer operations).
  FP8GEMM_HOST_DEVICE static bool normal(float x) { return Rule::normal(x); }

  /// The rule (FoldOrTwice, mainloop/scale_promotion.hpp) per element: one FFMA when the
  /// warp's products s_a · s_b are all normal, else fma(partial · s_a, s_b, acc), the
  /// portable path's order (nvcc contracts the unfused form to it anyway). `partial` holds
  /// registers r0 .. r0 + Regs - 1 of m64 row block i's accumulators (a promotion chunk; r0 a
  /// multiple of 4, so register r0 + r has r's row).
  template <int Regs>
  FP8GEMM_DEVICE void promote(float* acc, float const (&partial)[Regs], int i, int r0 = 0) const {
    float both[2][kBGroups];
    bool ok = true;
    FP8GEMM_UNROLL
    for (int h = 0; h < 2; ++h) {
      FP8GEMM_UNROLL
      for (int g = 0; g < kBGroups; ++g) {
        both[h][g] = sa[i][h] * sb[g];
        ok = ok && normal(both[h][g]);
      }
    }
    if (Rule::vote(ok)) {
      FP8GEMM_UNROLL
      for (int r = 0; r < Regs; ++r)
        acc[r0 + r] = Rule::folded(partial[r], both[(r / 2) % 2][group(r0 + r)], acc[r0 + r]);
    } else {
      FP8GEMM_UNROLL
      for (int r = 0; r < Regs; ++r)
        acc[r0 + r] =
            Rule::fallback(partial[r], sa[i][(r / 2) % 2], sb[group(r0 + r)], acc[r0 + r]);
    }
  }

  /// promote() on a checked tile, where every product s_a · s_b is known to be normal (the
  /// mainloop's check_tile): the folded form alone, the bits promote() gives there, without the
  /// vote and its branch between the two forms (which cost the 128 x 256 tile 13-15 % of its time:
  /// docs/performance.md#sm90-checked-tiles).
  template <int Regs>
  FP8GEMM_DEVICE void promote_folded(float* acc, float const (&partial)[Regs], int i,
                                     int r0 = 0) const {
    FP8GEMM_UNROLL
    for (int r = 0; r < Regs; ++r)
      acc[r0 + r] = Rule::folded(partial[r], sa[i][(r / 2) % 2] * sb[group(r0 + r)], acc[r0 + r]);
  }

  /// B column group of register r: its column is 8 (r / 4) + (0..7) in the tile.
  FP8GEMM_HOST_DEVICE static constexpr int group(int r) {
    return kBGroups == 1 ? 0 : (8 * (r / 4)) / kScaleBlockN;
  }
};

/// The same for the swapped-operand policies (WgmmaSwapABPolicy: the accumulators hold C^T,
/// register r of thread t of consumer c is C[m0 + acc_col(t, r)][n0 + 64 c + acc_row(t, r)];
/// rows() takes n0 + 64 c as its n0). A thread's accumulator columns are C rows
/// m0 + 8 j + 2 (t % 4) + e (j < BlockMCols / 8, e = 0, 1: register r has j = r / 4, e = r % 2),
/// each with its own A scale; its accumulator rows are its consumer's 64 rows of N, inside one B
/// scale block (the rules ask kScaleBlockN to be a multiple of 64), so one B scale. The rules allow
/// at most 64 columns: 16 A scales (and offsets) per thread.
template <class Policy, class Granularity, int kScaleBlockN>
struct WgmmaSwappedBlockScales {
  using Atom = typename Policy::Atom;
  static constexpr int kColumnGroups = Policy::kBlockM / 8;  // j: 8 columns of the wgmma N each
  static constexpr int kBGroups = 1;
  // (no scale ring with swapped operands: the slots' sizes only)
  static constexpr int kRingCopiesA = 1, kRingBoxA = Policy::kBlockM + 4;
  static constexpr int kRingPartA = (kRingBoxA + 31) / 32 * 32, kRingSlotA = kRingPartA;
  static constexpr int kRingBoxB = 4, kRingSlotB = 32;
  float sa[kColumnGroups][2];
  float sb;

  /// Where a thread's scales of one tile start (WgmmaBlockScales::Rows): k-block kb's are
  /// scale_a.data[a[j][e] + kb * ka] and scale_b.data[b + kb]. Rows past M read row M - 1's scale
  /// (their outputs are never stored).
  struct Rows {
    int a[kColumnGroups][2];
    int b;
    int ka;  // A's K-block stride: 1 (row-major) or its ld (K-block-major)
  };
  template <class Params>
  FP8GEMM_DEVICE static Rows rows(Params const& p, int m_first, int n0, int t) {
    Rows r;
    r.ka = p.scale_a.k_stride();
    FP8GEMM_UNROLL
    for (int j = 0; j < kColumnGroups; ++j) {
      FP8GEMM_UNROLL
      for (int e = 0; e < 2; ++e) {
        int m = m_first + Atom::acc_col(t, 4 * j + e);
        m = m < p.problem.m ? m : p.problem.m - 1;
        r.a[j][e] = p.scale_a.row_start(m, Granularity::kABlockM);
      }
    }
    int const n = n0 < p.problem.n ? n0 : p.problem.n - 1;
    r.b = p.scale_b.row_start(n, kScaleBlockN);
    return r;
  }
  template <class Params>
  FP8GEMM_DEVICE void load(Params const& p, Rows const& r, int kb) {
    FP8GEMM_UNROLL
    for (int j = 0; j < kColumnGroups; ++j) {
      FP8GEMM_UNROLL
      for (int e = 0; e < 2; ++e) sa[j][e] = p.scale_a.at(r.a[j][e] + kb * r.ka);
    }
    sb = p.scale_b.at(r.b + kb);
  }
  /// The same from scratch (host tests).
  template <class Params>
  FP8GEMM_DEVICE void load(Params const& p, int m_first, int n0, int kb, int t) {
    load(p, rows(p, m_first, n0, t), kb);
  }

  using Rule = FoldOrTwice<32>;
  FP8GEMM_HOST_DEVICE static bool normal(float x) { return Rule::normal(x); }

  /// WgmmaBlockScales::promote's rule on registers r0 .. r0 + Regs - 1 (a promotion chunk: r0
  /// and Regs multiples of 4, so the chunk is whole column groups), the warp voting on the
  /// chunk's products s_a · s_b. `i` (the m64 row block) is always 0 here.
  template <int Regs>
  FP8GEMM_DEVICE void promote(float* acc, float const (&partial)[Regs], int /*i*/,
                              int r0 = 0) const {
    static_assert(Regs % 4 == 0, "a chunk is whole 8-column groups of the wgmma N");
    constexpr int kGroups = Regs / 4;
    int const j0 = r0 / 4;
    float both[kGroups][2];
    bool ok = true;
    FP8GEMM_UNROLL
    for (int j = 0; j < kGroups; ++j) {
      FP8GEMM_UNROLL
      for (int e = 0; e < 2; ++e) {
        both[j][e] = sa[j0 + j][e] * sb;
        ok = ok && normal(both[j][e]);
      }
    }
    if (Rule::vote(ok)) {
      FP8GEMM_UNROLL
      for (int r = 0; r < Regs; ++r)
        acc[r0 + r] = Rule::folded(partial[r], both[r / 4][r % 2], acc[r0 + r]);
    } else {
      FP8GEMM_UNROLL
      for (int r = 0; r < Regs; ++r)
        acc[r0 + r] = Rule::fallback(partial[r], sa[j0 + r / 4][r % 2], sb, acc[r0 + r]);
    }
  }
};

}  // namespace fp8gemm
