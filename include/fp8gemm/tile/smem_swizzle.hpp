// SPDX-License-Identifier: MIT
/// Shared-memory swizzle address math (tile layer): the 128-byte swizzle that TMA writes with
/// CU_TENSOR_MAP_SWIZZLE_128B and that wgmma reads through a 128B-swizzle matrix descriptor.
/// Host/device constexpr, so host tests and the emulator's bank model can use the same formula.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// 128-byte swizzle of a tile whose rows are 128 bytes (one K-block of fp8, K-major), stored from
/// a 1024-byte aligned address: within each 1024-byte atom of 8 rows, 16-byte chunk c of row r
/// lands at chunk c ^ (r % 8) of the same row. As bits of the byte offset o = 128 r + b:
/// o ^ (((o >> 7) & 7) << 4), i.e. address bits [4, 7) ^= bits [7, 10) (CuTe's Swizzle<3, 4, 3>).
/// Rows, and so atoms, never mix: row r stays in bytes [128 r, 128 r + 128).
struct Swizzle128B {
  static constexpr int kRowBytes = 128;                     // one swizzle span
  static constexpr int kChunkBytes = 16;                    // the unit that moves
  static constexpr int kAtomRows = 8;                       // rows per repeat of the pattern
  static constexpr int kAtomBytes = kAtomRows * kRowBytes;  // 1024: the alignment the tile needs

  /// Swizzled offset of linear byte offset `o` (o = 128·row + byte-in-row) of the tile.
  FP8GEMM_HOST_DEVICE static constexpr std::uint32_t apply(std::uint32_t o) {
    return o ^ (((o >> 7) & 7u) << 4);
  }

  /// Byte offset in the tile of byte `byte` (0..127) of row `row`.
  FP8GEMM_HOST_DEVICE static constexpr std::uint32_t offset(std::uint32_t row, std::uint32_t byte) {
    return apply(row * kRowBytes + byte);
  }

  /// Chunk index (0..7) within its row that chunk `chunk` of row `row` is stored at.
  FP8GEMM_HOST_DEVICE static constexpr std::uint32_t chunk(std::uint32_t row, std::uint32_t chunk) {
    return chunk ^ (row % kAtomRows);
  }
};

}  // namespace fp8gemm
