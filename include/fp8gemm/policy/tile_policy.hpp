// SPDX-License-Identifier: MIT
/// TilePolicy: the compile-time shape of one GEMM kernel (policy layer). Every impossible
/// combination is a static_assert that says why.
#pragma once

#include <cstdint>

namespace fp8gemm {

/// Block tile kBlockM x kBlockN x kBlockK per workgroup, split over kWavesM x kWavesN waves, built
/// from Atom (one matrix instruction), with kStages LDS stages (2 = double buffer).
///
/// LDS layout, per stage: A as [kBlockM][kLdsRowBytes], B as [kBlockN][kLdsRowBytes] (B always
/// N x K in LDS), where kLdsRowBytes = kBlockK + Atom's row padding. NOTE: the padding (not an XOR
/// swizzle) is what keeps fragment reads free of bank conflicts: consecutive rows start
/// kLdsRowBytes apart, which rotates them across the banks so that the rows one read phase touches
/// land in distinct banks (derivation beside each atom's kLdsPadBytes; the emulator measures it).
template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, class AtomT, int Stages = 2>
struct TilePolicy {
  using Atom = AtomT;
  using Arch = typename Atom::Arch;
  using ElementA = typename Atom::ElementA;
  using ElementB = typename Atom::ElementB;

  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK;
  static constexpr int kWavesM = WavesM, kWavesN = WavesN, kStages = Stages;
  static constexpr int kWaves = WavesM * WavesN;
  static constexpr int kThreads = kWaves * Arch::kWaveSize;
  static constexpr int kWaveTileM = BlockM / WavesM;  // rows of C one wave owns
  static constexpr int kWaveTileN = BlockN / WavesN;  // columns of C one wave owns
  static constexpr int kAtomsM = kWaveTileM / Atom::kM;
  static constexpr int kAtomsN = kWaveTileN / Atom::kN;
  static constexpr int kKSteps = BlockK / Atom::kK;   // atoms along K per K-tile

  static constexpr int kLdsRowBytes = BlockK + Atom::kLdsPadBytes;
  static constexpr int kLdsStageABytes = BlockM * kLdsRowBytes;
  static constexpr int kLdsStageBBytes = BlockN * kLdsRowBytes;
  static constexpr int kLdsBytes = kStages * (kLdsStageABytes + kLdsStageBBytes);
  static constexpr int kAccumulators = kAtomsM * kAtomsN * Atom::kCRegs;  // FP32 per thread
  /// Registers a thread may hold (arch and block size); accumulators may take at most half, the
  /// rest is fragments, the staged copy and addresses.
  static constexpr int kRegisterBudget = Arch::registers_per_lane(kWaves);

  static_assert(BlockM > 0 && BlockN > 0 && BlockK > 0 && WavesM > 0 && WavesN > 0,
                "tile sizes and wave counts must be positive");
  static_assert(BlockM % WavesM == 0 && BlockN % WavesN == 0,
                "the block tile must split evenly over the waves");
  static_assert(kWaveTileM % Atom::kM == 0,
                "the wave tile's M extent must be a whole number of atoms (Atom::kM)");
  static_assert(kWaveTileN % Atom::kN == 0,
                "the wave tile's N extent must be a whole number of atoms (Atom::kN)");
  static_assert(BlockK % Atom::kK == 0, "BlockK must be a multiple of the atom's K");
  static_assert(BlockK % 16 == 0, "BlockK must be a multiple of 16: global loads move 16 bytes");
  static_assert(Stages >= 2, "the mainloop needs at least two LDS stages (2 = double buffer)");
  static_assert(kThreads <= 1024, "at most 1024 threads per workgroup");
  static_assert(kLdsBytes <= Arch::kLdsBytes,
                "the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages");
  static_assert(kAccumulators <= Arch::kMaxAccumulatorRegs / 2 && kAccumulators <= kRegisterBudget / 2,
                "too many FP32 accumulators per thread for this target (each K-blocked or promoted "
                "accumulator also needs a partial-sum copy): use more waves or a smaller tile");
  static_assert((BlockM * BlockK / 16) % kThreads == 0 && (BlockN * BlockK / 16) % kThreads == 0,
                "each thread must copy a whole number of 16-byte vectors of the A and B tiles");
};

}  // namespace fp8gemm
