// SPDX-License-Identifier: MIT
/// Global -> registers -> LDS copies of the A and B K-tiles (tile layer). Every byte outside the
/// matrix (rows >= M or N, k >= K) arrives in LDS as zero; nothing outside is ever read.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm {

/// A row-major operand tile, K contiguous: [kRows, kBlockK] bytes of a [rows, k] matrix (lda bytes
/// per row, lda % 16 == 0, base 16-byte aligned). Each thread moves kVecs 16-byte vectors; vector
/// v = thread + i * kThreads covers tile row row_of(v / kChunks), bytes 16 * (v % kChunks) .. +15.
///
/// NOTE: LDS stores are free of bank conflicts when the lanes of one store phase cover every bank
/// once. A phase is kBanks * 4 / kStoreBytes lanes; when it spans two rows, rows r and r + kDelta
/// (with kDelta * pitch = kBanks / 2 dwords, mod kBanks) fill opposite bank halves, so row_of pairs
/// them up instead of storing rows r and r + 1 together. Rows padded to 8 (not 16) bytes are
/// written with two 8-byte stores.
template <class Policy, int kRows>
struct RowMajorTileCopy {
  static constexpr int kChunks = Policy::kBlockK / 16;             // 16-byte vectors per row
  static constexpr int kVecs = kRows * kChunks / Policy::kThreads;  // per thread
  static constexpr int kStoreBytes = Policy::kLdsRowBytes % 16 == 0 ? 16 : 8;
  static constexpr int kBanks = Policy::Arch::kLdsBanks;
  static constexpr int kPitchDwords = Policy::kLdsRowBytes / 4;
  static constexpr int kRowsPerPhase = kBanks * 4 / 16 / kChunks;  // rows one 16-byte phase spans

  static constexpr int find_delta() {
    if (kRowsPerPhase != 2 || kStoreBytes != 16) return 0;
    for (int d = 1; d < 64 && 2 * d <= kRows; ++d)
      if ((kPitchDwords * d) % kBanks == kBanks / 2 && kRows % (2 * d) == 0) return d;
    return 0;
  }
  static constexpr int kDelta = find_delta();

  /// Tile row of the n-th row in copy order (identity unless rows are paired, see NOTE).
  FP8GEMM_HOST_DEVICE static constexpr int row_of(int n) {
    if constexpr (kDelta == 0) {
      return n;
    } else {
      int const pair = n / 2, block = pair / kDelta, j = pair % kDelta;
      return block * 2 * kDelta + (n % 2) * kDelta + j;
    }
  }

  arch::Vec<16> staged[kVecs];  // this thread's share of the tile

  /// Loads rows [row0, row0 + kRows) x bytes [k0, k0 + kBlockK), zero outside [rows, k).
  FP8GEMM_DEVICE void load(std::uint8_t const* base, std::int64_t ld, int rows, int k, int row0,
                           int k0) {
    int const tid = arch::thread_idx();
    FP8GEMM_UNROLL
    for (int i = 0; i < kVecs; ++i) {
      int const v = tid + i * Policy::kThreads;
      int const row = row0 + row_of(v / kChunks);
      int const kk = k0 + 16 * (v % kChunks);
      arch::Vec<16> vec{};
      if (row < rows && kk < k) {
        std::uint8_t const* p = base + row * ld + kk;
        if (kk + 16 <= k) {
          vec = arch::global_load16(p);
        } else {  // K tail: only the valid bytes are read, the rest stay zero
          auto* bytes = reinterpret_cast<std::uint8_t*>(vec.w);
          for (int j = 0; j < k - kk; ++j) bytes[j] = p[j];
        }
      }
      staged[i] = vec;
    }
  }

  /// Writes the staged vectors into one LDS stage laid out [kRows][Policy::kLdsRowBytes].
  FP8GEMM_DEVICE void store(std::uint8_t* lds_stage, char const* site) const {
    int const tid = arch::thread_idx();
    FP8GEMM_UNROLL
    for (int i = 0; i < kVecs; ++i) {
      int const v = tid + i * Policy::kThreads;
      std::uint32_t const offset = row_of(v / kChunks) * Policy::kLdsRowBytes + 16 * (v % kChunks);
      if constexpr (kStoreBytes == 16) {
        arch::lds_store<16, kBanks>(lds_stage, offset, staged[i], site);
      } else {
        arch::Vec<8> lo, hi;
        lo.w[0] = staged[i].w[0], lo.w[1] = staged[i].w[1];
        hi.w[0] = staged[i].w[2], hi.w[1] = staged[i].w[3];
        arch::lds_store<8, kBanks>(lds_stage, offset, lo, site);
        arch::lds_store<8, kBanks>(lds_stage, offset + 8, hi, site);
      }
    }
  }
};

/// B stored K x N (N contiguous, ldb % 16 == 0) copied into LDS as N x K. A thread's unit is a
/// 4 (k) x 16 (n) block: four 16-byte row loads, transposed in registers into sixteen 4-byte
/// words [n][k..k+3]. Unit u covers n = 16 * (u % kUnitsN) .. +15 and k = 4 * (u / kUnitsN) .. +3,
/// so consecutive threads read consecutive 16-byte pieces of one K row (coalesced).
template <class Policy>
struct TransposedTileCopyB {
  static constexpr int kUnitsN = Policy::kBlockN / 16;
  static constexpr int kUnitsK = Policy::kBlockK / 4;
  static constexpr int kUnits = kUnitsN * kUnitsK / Policy::kThreads;  // per thread
  static_assert(Policy::kBlockN % 16 == 0 && (kUnitsN * kUnitsK) % Policy::kThreads == 0,
                "mk_kn_mn: each thread copies whole 4 x 16 blocks of B");
  std::uint32_t staged[kUnits][16];  // [unit][n]: 4 k-bytes of column n, k ascending in bytes

  /// Loads k in [k0, k0 + kBlockK) x n in [n0, n0 + kBlockN), zero outside [k, n).
  FP8GEMM_DEVICE void load(std::uint8_t const* base, std::int64_t ld, int n_total, int k_total,
                           int n0, int k0) {
    int const tid = arch::thread_idx();
FP8GEMM_UNROLL
    for (int i = 0; i < kUnits; ++i) {
      int const u = tid + i * Policy::kThreads;
      int const n = n0 + 16 * (u % kUnitsN);
      int const k = k0 + 4 * (u / kUnitsN);
      arch::Vec<16> rows[4];
FP8GEMM_UNROLL
      for (int j = 0; j < 4; ++j) {
        rows[j] = arch::Vec<16>{};
        if (k + j < k_total && n < n_total) {
          std::uint8_t const* p = base + (k + j) * ld + n;
          if (n + 16 <= n_total) {
            rows[j] = arch::global_load16(p);
          } else {  // N tail: only the valid bytes are read
            auto* bytes = reinterpret_cast<std::uint8_t*>(rows[j].w);
            for (int c = 0; c < n_total - n; ++c) bytes[c] = p[c];
          }
        }
      }
      // word[c] = bytes {row0[c], row1[c], row2[c], row3[c]} (k ascending = little-endian bytes)
FP8GEMM_UNROLL
      for (int c = 0; c < 16; ++c) {
        std::uint32_t word = 0;
FP8GEMM_UNROLL
        for (int j = 0; j < 4; ++j) word |= std::uint32_t((rows[j].w[c / 4] >> (8 * (c % 4))) & 0xFFu) << (8 * j);
        staged[i][c] = word;
      }
    }
  }

  FP8GEMM_DEVICE void store(std::uint8_t* lds_stage, char const* site) const {
    int const tid = arch::thread_idx();
FP8GEMM_UNROLL
    for (int i = 0; i < kUnits; ++i) {
      int const u = tid + i * Policy::kThreads;
      int const n = 16 * (u % kUnitsN);
      int const k = 4 * (u / kUnitsN);
FP8GEMM_UNROLL
      for (int c = 0; c < 16; ++c) {
        arch::Vec<4> word;
        word.w[0] = staged[i][c];
        arch::lds_store<4, Policy::Arch::kLdsBanks>(
            lds_stage, std::uint32_t((n + c) * Policy::kLdsRowBytes + k), word, site);
      }
    }
  }
};

}  // namespace fp8gemm
