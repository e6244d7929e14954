// SPDX-License-Identifier: MIT
/// Global -> LDS copies of the A and B K-tiles (tile layer): through registers, or by cp.async with
/// no registers (AsyncRowMajorTileCopy), into an LDS layout (tile/lds_layout.hpp), by the
/// kThreads threads the mainloop chooses: every call takes the thread's index among them (tid).
/// Every byte outside the matrix (rows >= M or N, k >= K) arrives in LDS as zero; nothing outside
/// is ever read.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/tile/lds_layout.hpp"
#include "fp8gemm/tile/tile_rules.hpp"

namespace fp8gemm {

/// The first `valid` (< 16) bytes at p, zero above. NOTE: compile-time byte indices only: a
/// run-time index into the vector would move it (and its neighbours) to scratch / local memory.
FP8GEMM_DEVICE arch::Vec<16> load_partial16(std::uint8_t const* p, int valid) {
  arch::Vec<16> vec{};
  FP8GEMM_UNROLL
  for (int j = 0; j < 16; ++j)
    if (j < valid) vec.w[j / 4] |= std::uint32_t(p[j]) << (8 * (j % 4));
  return vec;
}

/// A row-major operand tile, K contiguous: [Layout::kRows, Layout::kRowBytes] bytes of a [rows, k]
/// matrix (ld bytes per row, ld % 16 == 0, base 16-byte aligned) into `Layout`. Each of kThreads
/// threads moves kVecs 16-byte vectors; vector v = thread + i * kThreads covers tile row
/// row_of(v / kChunks), bytes 16 * (v % kChunks) .. +15. kBanks: the target's 4-byte LDS banks.
///
/// NOTE: an LDS store is free of bank conflicts when the lanes of each store phase (kBanks * 4 /
/// kStoreBytes lanes, the bank model's rule) write every bank once. A phase spans kRowsPerPhase
/// rows; row_of makes them kHalf consecutive rows plus the same rows kDelta further on, with kDelta
/// the smallest distance for which that holds (phase_conflict_free, evaluated at compile time;
/// kDelta = 0 keeps the natural order when it is already conflict-free or nothing helps):
///   gfx950, kBlockK 128: pitch 36 dwords, 16-byte stores, a phase = 2 rows of 32 consecutive
///     dwords; rows r and r + 1 overlap in 4 banks, rows r and r + 8 (8 * 36 = 32 mod 64) fill
///     opposite bank halves: kDelta = 8.
///   gfx942, kBlockK 64: rows padded to 8 (not 16) bytes are written with two 8-byte stores, a
///     phase = 16 lanes = 4 rows x 4 chunks, row r at dwords 18r + {0, 4, 8, 12} (+1). Rows r and
///     r + 1 (18 = 16 + 2) fill the pairs 0-1 mod 4 of one 16-bank half and 2-3 mod 4 of the other;
///     rows r + 8, r + 9 (8 * 18 = 16 mod 32) fill the rest: kDelta = 8. (Natural order: rows r
///     and r + 2 are 36 = 4 mod 32 dwords apart and overlap, 2-way.)
///   sm90, kBlockK 64: pitch 20 dwords, 16-byte stores, a phase = 8 lanes = 2 rows of 16 dwords;
///     rows r and r + 4 (4 * 20 = 16 mod 32) fill opposite bank halves: kDelta = 4. (kBlockK 128:
///     a phase is one row, natural order.)
template <class Layout, int kThreads, int kBanks>
struct RowMajorTileCopy {
  static constexpr int kRows = Layout::kRows;
  static constexpr int kChunks = Layout::kRowBytes / 16;    // 16-byte vectors per row
  static constexpr int kVecs = kRows * kChunks / kThreads;  // per thread
  static constexpr int kStoreBytes = Layout::kPitch % 16 == 0 ? 16 : 8;
  static_assert(tile_rules::rows_are_vectors(Layout::kRowBytes), FP8GEMM_RULE_COPY_ROW_VECTORS);
  static_assert(tile_rules::whole_vectors_per_thread(kRows, Layout::kRowBytes, kThreads),
                FP8GEMM_RULE_COPY_VECTORS);
  static constexpr int kLanesPerPhase = kBanks * 4 / kStoreBytes;
  static constexpr int kRowsPerPhase =  // rows one store phase spans (1: one row or part of one)
      kLanesPerPhase > kChunks ? kLanesPerPhase / kChunks : 1;
  static constexpr int kHalf = kRowsPerPhase > 1 ? kRowsPerPhase / 2 : 1;

  /// Tile row of the n-th row in copy order: store phase p = n / kRowsPerPhase takes kHalf
  /// consecutive rows and the same rows `delta` further on (delta = 0: natural order).
  FP8GEMM_HOST_DEVICE static constexpr int paired_row(int n, int delta) {
    if (delta == 0) return n;
    int const p = n / kRowsPerPhase, i = n % kRowsPerPhase, phases_per_block = delta / kHalf;
    return (p / phases_per_block) * 2 * delta + (i / kHalf) * delta +
           (p % phases_per_block) * kHalf + i % kHalf;
  }

  /// True when the first store phase writes no bank twice; every other phase (and the second
  /// 8-byte store) is the same pattern shifted by whole dwords, so it is then conflict-free too.
  static constexpr bool phase_conflict_free(int delta) {
    int dwords_per_bank[kBanks] = {};
    for (int lane = 0; lane < kLanesPerPhase; ++lane) {
      int const dword =
          Layout::offset(paired_row(lane / kChunks, delta), 16 * (lane % kChunks)) / 4;
      for (int w = 0; w < kStoreBytes / 4; ++w)
        if (++dwords_per_bank[(dword + w) % kBanks] > 1) return false;
    }
    return true;
  }

  static constexpr int find_delta() {
    bool const search =
        kRowsPerPhase > 1 && kLanesPerPhase % (2 * kChunks) == 0 && !phase_conflict_free(0);
    int delta = 0;
    for (int d = kHalf; search && delta == 0 && 2 * d <= kRows; d += kHalf)
      if (kRows % (2 * d) == 0 && phase_conflict_free(d)) delta = d;
    return delta;
  }
  static constexpr int kDelta = find_delta();

  /// Tile row of the n-th row in copy order (see NOTE).
  FP8GEMM_HOST_DEVICE static constexpr int row_of(int n) { return paired_row(n, kDelta); }

  arch::Vec<16> staged[kVecs];  // this thread's share of the tile

  /// Loads rows [row0, row0 + kRows) x bytes [k0, k0 + kBlockK), zero outside [rows, k).
  FP8GEMM_DEVICE void load(std::uint8_t const* base, std::int64_t ld, int rows, int k, int row0,
                           int k0, int tid) {
    FP8GEMM_UNROLL
    for (int i = 0; i < kVecs; ++i) {
      int const v = tid + i * kThreads;
      int const row = row0 + row_of(v / kChunks);
      int const kk = k0 + 16 * (v % kChunks);
      arch::Vec<16> vec{};
      if (row < rows && kk < k) {
        std::uint8_t const* p = base + row * ld + kk;
        if (kk + 16 <= k) {
          vec = arch::global_load16(p);
        } else {  // K tail: only the valid bytes are read, the rest stay zero
          vec = load_partial16(p, k - kk);
        }
      }
      staged[i] = vec;
    }
  }

  /// The mainloop's two steps: issue = the global loads (into registers), land = the LDS stores.
  FP8GEMM_DEVICE void issue(std::uint8_t const* base, std::int64_t ld, int rows, int k, int row0,
                            int k0, std::uint8_t*, int tid) {
    load(base, ld, rows, k, row0, k0, tid);
  }
  FP8GEMM_DEVICE void land(std::uint8_t* lds_stage, int tid) const { store(lds_stage, tid); }

  /// Writes the staged vectors into one LDS stage laid out as Layout.
  FP8GEMM_DEVICE void store(std::uint8_t* lds_stage, int tid) const {
    FP8GEMM_UNROLL
    for (int i = 0; i < kVecs; ++i) {
      int const v = tid + i * kThreads;
      std::uint32_t const offset = Layout::offset(row_of(v / kChunks), 16 * (v % kChunks));
      if constexpr (kStoreBytes == 16) {
        arch::lds_store<16>(lds_stage, offset, staged[i]);
      } else {
        arch::Vec<8> lo, hi;
        lo.w[0] = staged[i].w[0], lo.w[1] = staged[i].w[1];
        hi.w[0] = staged[i].w[2], hi.w[1] = staged[i].w[3];
        arch::lds_store<8>(lds_stage, offset, lo);
        arch::lds_store<8>(lds_stage, offset + 8, hi);
      }
    }
  }
};

/// The same tile copied without registers (Arch::kAsyncCopy, cp.async): issue puts each 16-byte
/// vector straight into the LDS stage (same vector -> row mapping and bank pattern as
/// RowMajorTileCopy), zero-filling bytes outside [rows, k); the mainloop's async_copy_wait and
/// barrier make it visible, so land has nothing left to do.
template <class Layout, int kThreads, int kBanks>
struct AsyncRowMajorTileCopy {
  using Order = RowMajorTileCopy<Layout, kThreads, kBanks>;  // vector -> row mapping
  static_assert(tile_rules::async_vectors(Layout::kPitch), FP8GEMM_RULE_ASYNC_COPY_VECTORS);

  FP8GEMM_DEVICE void issue(std::uint8_t const* base, std::int64_t ld, int rows, int k, int row0,
                            int k0, std::uint8_t* lds_stage, int tid) {
    FP8GEMM_UNROLL
    for (int i = 0; i < Order::kVecs; ++i) {
      int const v = tid + i * kThreads;
      int const tile_row = Order::row_of(v / Order::kChunks);
      int const row = row0 + tile_row;
      int const kk = k0 + 16 * (v % Order::kChunks);
      bool const inside = row < rows && kk < k;
      int const valid = !inside ? 0 : (k - kk < 16 ? k - kk : 16);
      std::uint8_t const* src = inside ? base + row * ld + kk : base;  // valid = 0 reads nothing
      arch::copy_global_to_lds16(lds_stage, Layout::offset(tile_row, 16 * (v % Order::kChunks)),
                                 src, valid);
    }
  }
  FP8GEMM_DEVICE void land(std::uint8_t*, int) const {}
};

/// B stored K x N (N contiguous, ldb % 16 == 0) copied into LDS as N x K. A thread's unit is a
/// 4 (k) x 16 (n) block: four 16-byte row loads, transposed in registers (at store time, so the
/// loads stay in flight during the multiply) into sixteen 4-byte words [n][k..k+3]. Unit u covers
/// n = 16 * (u % kUnitsN) .. +15 and k = 4 * (u / kUnitsN) .. +3, so consecutive threads read
/// consecutive 16-byte pieces of one K row (coalesced).
///
/// B stored K x N into `Layout` (N rows of K). NOTE: the lanes of one 4-byte store phase hold
/// units 16 n apart (rows 16 apart land in the same banks: 16 * pitch = 0 mod kBanks for the
/// default pitches 36 and 18 dwords) and only a few k.
/// Storing column c of every unit together would be 16-way (gfx950, gfx942) or 8-way (sm90). So
/// at step c the unit with x = (u % kUnitsN) % 16 stores column c ^ x: rows 16a + (c ^ x) cover
/// 16 (8 on sm90) distinct rows whose starts, pitch * row mod kBanks, are distinct multiples of
/// 4 (gfx950, sm90) or 2 (gfx942), and the phase's 4 (gfx942: 2) consecutive k words fill the
/// gaps: every bank once. The words are put in c ^ x order by conditional swaps, never by a
/// register index that depends on the lane.
template <class Layout, int kThreads>
struct TransposedTileCopyB {
  static constexpr int kUnitsN = Layout::kRows / 16;
  static constexpr int kUnitsK = Layout::kRowBytes / 4;
  static constexpr int kTotalUnits = kUnitsN * kUnitsK;
  static constexpr int kUnits = (kTotalUnits + kThreads - 1) / kThreads;  // per thread
  static_assert(tile_rules::transposed_b_blocks(Layout::kRows, Layout::kRowBytes, kThreads),
                FP8GEMM_RULE_KN_B_BLOCKS);
  arch::Vec<16> staged[kUnits][4];  // [unit][k]: 16 n-bytes of K row k0 + 4 * (u / kUnitsN) + k

  /// Loads k in [k0, k0 + kRowBytes) x n in [n0, n0 + kRows), zero outside [k, n).
  FP8GEMM_DEVICE void load(std::uint8_t const* base, std::int64_t ld, int n_total, int k_total,
                           int n0, int k0, int tid) {
    FP8GEMM_UNROLL
    for (int i = 0; i < kUnits; ++i) {
      int const u = tid + i * kThreads;
      int const n = n0 + 16 * (u % kUnitsN);
      int const k = k0 + 4 * (u / kUnitsN);
      FP8GEMM_UNROLL
      for (int j = 0; j < 4; ++j) {
        staged[i][j] = arch::Vec<16>{};
        if (u < kTotalUnits && k + j < k_total && n < n_total) {
          std::uint8_t const* p = base + (k + j) * ld + n;
          if (n + 16 <= n_total) {
            staged[i][j] = arch::global_load16(p);
          } else {  // N tail: only the valid bytes are read
            staged[i][j] = load_partial16(p, n_total - n);
          }
        }
      }
    }
  }

  /// The mainloop's two steps: issue = the global loads (into registers), land = the LDS stores.
  FP8GEMM_DEVICE void issue(std::uint8_t const* base, std::int64_t ld, int n_total, int k_total,
                            int n0, int k0, std::uint8_t*, int tid) {
    load(base, ld, n_total, k_total, n0, k0, tid);
  }
  FP8GEMM_DEVICE void land(std::uint8_t* lds_stage, int tid) const { store(lds_stage, tid); }

  /// Writes the staged units transposed into one LDS stage laid out as Layout (N rows of K).
  FP8GEMM_DEVICE void store(std::uint8_t* lds_stage, int tid) const {
    FP8GEMM_UNROLL
    for (int i = 0; i < kUnits; ++i) {
      int const u = tid + i * kThreads;
      if (kTotalUnits % kThreads != 0 && u >= kTotalUnits) break;  // fewer units than threads
      int const n = 16 * (u % kUnitsN);
      int const k = 4 * (u / kUnitsN);
      int const x = (u % kUnitsN) % 16;  // column swizzle, see NOTE
      // word[c] = bytes {row0[c], row1[c], row2[c], row3[c]} (k ascending = little-endian bytes)
      std::uint32_t word[16];
      FP8GEMM_UNROLL
      for (int c = 0; c < 16; ++c) {
        word[c] = 0;
        FP8GEMM_UNROLL
        for (int j = 0; j < 4; ++j)
          word[c] |= ((staged[i][j].w[c / 4] >> (8 * (c % 4))) & 0xFFu) << (8 * j);
      }
      // word[c] <- word[c ^ x]: one conditional swap stage per bit of x
      FP8GEMM_UNROLL
      for (int bit = 1; bit < 16; bit <<= 1) {
        bool const swap = (x & bit) != 0;
        FP8GEMM_UNROLL
        for (int c = 0; c < 16; ++c) {
          if (c & bit) continue;
          std::uint32_t const lo = word[c], hi = word[c | bit];
          word[c] = swap ? hi : lo;
          word[c | bit] = swap ? lo : hi;
        }
      }
      FP8GEMM_UNROLL
      for (int c = 0; c < 16; ++c) {
        arch::Vec<4> v;
        v.w[0] = word[c];
        arch::lds_store<4>(lds_stage, Layout::offset(n + (c ^ x), k), v);
      }
    }
  }
};

}  // namespace fp8gemm
