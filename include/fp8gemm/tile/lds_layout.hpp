// SPDX-License-Identifier: MIT
/// LDS (shared-memory) tile layouts (tile layer): where byte k of row r of an operand tile lives.
/// The tile copies (tile/global_to_lds.hpp) and the atoms' fragment reads both address LDS through
/// a layout, so the bank analysis of a mainloop has one place to look: here. Padded rows (register-
/// staged copies) and XOR-swizzled rows (direct-to-LDS loads, which write 16 bytes per lane to
/// consecutive LDS addresses and so cannot pad); the Hopper 128-byte swizzle (TMA) is the next
/// member of this family: same offset(row, k) contract.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"
#include "fp8gemm/tile/tile_rules.hpp"

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
  static_assert(tile_rules::fragment_reads_conflict_free(BlockK, Atom::kLdsReadBytes),
                FP8GEMM_RULE_FRAGMENT_READ_PITCH);
};

/// [Rows][RowBytes] bytes (RowBytes = BlockK: 128 on gfx950, 64 on gfx942), K contiguous, no
/// padding, for direct-to-LDS loads (lanes write consecutive LDS addresses). Rows sit in slots by a
/// permutation, and the 16-byte chunk c of slot s is stored at chunk c ^ swizzle(s):
///   offset(row, k) = RowBytes * s + 16 * ((k / 16) ^ swizzle(s)) + k % 16,   s = slot(row)
///   swizzle(s) = (s / 2) % kChunks,   kChunks = RowBytes / 16
///   slot(row) = (row % kGroupRows) / kPartRows * (kRows / kGroupRows * kPartRows)
///               + row / kGroupRows * kPartRows + row % kPartRows
/// The permutation puts the rows one wave-row group reads in one pass (kPartRows of each of the
/// kRows / kGroupRows groups) in consecutive slots, so they arrive with consecutive loads; with
/// kGroupRows = kPartRows = Rows it is the identity.
///
/// NOTE (why the fragment reads are conflict free): an atom reads 16 consecutive rows (a multiple
/// of 16 apart) at one chunk x with ds_read_b128; kPartRows % 16 == 0, so the 16 rows are 16
/// consecutive slots s0 + i, s0 % 16 == 0. A read phase of the bank model is banks * 4 / 16 lanes.
///   RowBytes 128, 64 banks (gfx950): 16 lanes; slot s's chunk lands in the 16-byte bank group
///     8 * (s % 2) + (x ^ ((s / 2) % 8)) of the 256-byte bank period: over the 16 slots,
///     (s % 2, (s / 2) % 8) takes every pair once, so the 16 reads fill the 16 groups once.
///   RowBytes 64, 32 banks (gfx942): 8 lanes (slots s0 + 8h .. +7); the group is
///     4 * (s % 2) + (x ^ ((s / 2) % 4)) of the 128-byte bank period: over 8 slots,
///     (s % 2, (s / 2) % 4) takes every pair once, so the 8 reads fill the 8 groups once.
/// The loads write whole wave blocks (1 KiB / 256 B) of consecutive bytes: conflict free. The
/// emulator measures both (docs/lds_bank_conflicts.md).
template <int Rows, int GroupRows = Rows, int PartRows = Rows, int RowBytes = 128>
struct XorSwizzledLayout {
  static constexpr int kRows = Rows;
  static constexpr int kRowBytes = RowBytes;
  static constexpr int kPitch = RowBytes;  // bytes per slot; no padding
  static constexpr int kChunks = kRowBytes / 16;
  static constexpr int kBytes = Rows * kRowBytes;
  static constexpr int kGroupRows = GroupRows;
  static constexpr int kPartRows = PartRows;
  static constexpr int kSlotsPerPart = Rows / GroupRows * PartRows;
  static_assert(Rows % GroupRows == 0 && GroupRows % PartRows == 0 && PartRows % 16 == 0,
                "swizzled rows: groups divide the tile, parts divide a group, 16-row atoms");
  static_assert(RowBytes == 64 || RowBytes == 128,
                "swizzled rows of 64 or 128 bytes (the swizzle's chunk count divides 8)");

  FP8GEMM_HOST_DEVICE static constexpr int slot(int row) {
    return (row % GroupRows) / PartRows * kSlotsPerPart + row / GroupRows * PartRows +
           row % PartRows;
  }
  FP8GEMM_HOST_DEVICE static constexpr int row_of_slot(int s) {
    int const part = s / kSlotsPerPart, in_part = s % kSlotsPerPart;
    return in_part / PartRows * GroupRows + part * PartRows + in_part % PartRows;
  }
  /// Chunk c of a slot sits at chunk c ^ swizzle(slot) (an involution: the same map back).
  FP8GEMM_HOST_DEVICE static constexpr int swizzle(int s) { return (s / 2) % kChunks; }
  FP8GEMM_HOST_DEVICE static constexpr std::uint32_t offset(int row, int k) {
    int const s = slot(row);
    return static_cast<std::uint32_t>(s * kPitch + 16 * ((k / 16) ^ swizzle(s)) + k % 16);
  }
};

}  // namespace fp8gemm
