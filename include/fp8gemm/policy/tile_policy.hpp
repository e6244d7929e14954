// SPDX-License-Identifier: MIT
/// TilePolicy: the compile-time shape of one GEMM kernel (policy layer). Every impossible
/// combination is a static_assert that says why.
#pragma once

#include <cstdint>

namespace fp8gemm {

/// Block tile kBlockM x kBlockN x kBlockK per workgroup, split over kWavesM x kWavesN waves (each
/// wave = Atom::kThreads threads running the atom), built from Atom (one matrix instruction), with
/// kStages LDS stages (2 = double buffer). The shape is checked here; what a mainloop needs of it
/// (LDS layout and budget, which threads copy what) is checked by the mainloop
/// (mainloop/lds_multistage.hpp).
template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, class AtomT, int Stages = 2>
struct TilePolicy {
  using Atom = AtomT;
  using Arch = typename Atom::Arch;
  using ElementA = typename Atom::ElementA;
  using ElementB = typename Atom::ElementB;

  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK;
  static constexpr int kWavesM = WavesM, kWavesN = WavesN, kStages = Stages;
  static constexpr int kWaves = WavesM * WavesN;
  static constexpr int kThreads = kWaves * Atom::kThreads;
  static constexpr int kWaveTileM = BlockM / WavesM;  // rows of C one wave owns
  static constexpr int kWaveTileN = BlockN / WavesN;  // columns of C one wave owns
  static constexpr int kAtomsM = kWaveTileM / Atom::kM;
  static constexpr int kAtomsN = kWaveTileN / Atom::kN;
  static constexpr int kKSteps = BlockK / Atom::kK;   // atoms along K per K-tile

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
  static_assert(Atom::kThreads == Arch::kWaveSize,
                "TilePolicy runs one atom per wave; a warpgroup atom needs a policy of its own");
  static_assert(kThreads <= 1024, "at most 1024 threads per workgroup");
  static_assert(kAccumulators <= Arch::kMaxAccumulatorRegs / 2 && kAccumulators <= kRegisterBudget / 2,
                "too many FP32 accumulators per thread for this target (each K-blocked or promoted "
                "accumulator also needs a partial-sum copy): use more waves or a smaller tile");
};

}  // namespace fp8gemm
