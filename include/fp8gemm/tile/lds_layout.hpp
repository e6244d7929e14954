// SPDX-License-Identifier: MIT
/// LDS (shared-memory) tile layouts (tile layer): where byte k of row r of an operand tile lives.
/// The tile copies (tile/global_to_lds.hpp) and the atoms' fragment reads both address LDS through
/// a layout, so the bank analysis of a mainloop has one place to look: here. Padded rows today; an
/// XOR-swizzled layout (direct-to-LDS loads) and the Hopper 128-byte swizzle (TMA) are the next
/// members of this family: same offset(row, k) contract.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// [kRows][kPitch] bytes: kRows rows of kRowBytes bytes, K contiguous, each followed by kPadBytes
/// of padding. offset(r, k) = r * kPitch + k.
template <int Rows, int RowBytes, int PadBytes>
struct PaddedRowLayout {
  static_assert(Rows > 0 && RowBytes > 0 && PadBytes >= 0, "layout extents must be positive");
  static constexpr int kRows = Rows;
  static constexpr int kRowBytes = RowBytes;
  static constexpr int kPadBytes = PadBytes;
  static constexpr int kPitch = RowBytes + PadBytes;
  static constexpr int kBytes = Rows * kPitch;

  FP8GEMM_HOST_DEVICE static constexpr std::uint32_t offset(int row, int k) {
    return static_cast<std::uint32_t>(row * kPitch + k);
  }
};

/// The LDS layout of an operand tile [Rows][BlockK] that `Atom` reads its fragments from: rows
/// padded by the width W = Atom::kLdsReadBytes of the atom's LDS row reads.
///
/// NOTE (why this padding is conflict free): a read phase of the bank model (banks * 4 / W lanes,
/// arch/emu/lds_bank_model.hpp) is the lanes of consecutive rows r = 0, 1, ... at one k (every
/// atom here: lane % rows-per-atom is the row). Row r starts at r * pitch / 4 dwords; with
/// pitch = BlockK + W and BlockK / W even, pitch / W is odd, so r * (pitch / W) mod (banks * 4 / W)
/// takes every value once for the rows of a phase: each row's W bytes land on their own W / 4
/// banks, and the phase covers every bank exactly once. The defaults:
///   gfx950, 16x16x128 / 32x32x64, W = 16 (ds_read_b128), BlockK 128: pitch 144 B = 36 dwords,
///     16 rows per phase start at 4 * (9r mod 16): all 64 banks once.
///   gfx942, 16x16x32 / 32x32x16, W = 8 (ds_read_b64), BlockK 64: pitch 72 B = 18 dwords, 16 rows
///     start at 2 * (9r mod 16): all 32 banks once. Rows are then only 8-byte aligned, so the
///     tile copies store 8 bytes at a time (RowMajorTileCopy::kStoreBytes).
///   sm90, m16n8k32 by ldmatrix, W = 16 (a 16-byte row per lane), BlockK 64: pitch 80 B = 20
///     dwords, 8 rows per phase start at 4 * (5r mod 8): all 32 banks once.
/// The emulator measures every default policy (docs/lds_bank_conflicts.md).
template <int Rows, int BlockK, class Atom>
struct FragmentReadLayout : PaddedRowLayout<Rows, BlockK, Atom::kLdsReadBytes> {
  static_assert(
      BlockK % (2 * Atom::kLdsReadBytes) == 0,
      "BlockK must be an even multiple of the atom's LDS read width: then the padded pitch "
      "is an odd number of reads and the fragment reads are free of bank conflicts");
};

}  // namespace fp8gemm
