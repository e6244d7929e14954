// SPDX-License-Identifier: MIT
/// TilePolicy: the compile-time shape of one GEMM kernel (policy layer). Every impossible
/// combination is a static_assert that says why.
#pragma once

#include <cstdint>

#include "fp8gemm/policy/rule.hpp"

namespace fp8gemm {

/// Block tile kBlockM x kBlockN x kBlockK per workgroup, split over kWavesM x kWavesN waves (each
/// wave = Atom::kThreads threads running the atom), built from Atom (one matrix instruction), with
/// kStages LDS stages (2 = double buffer). The shape is checked here; what a mainloop needs of it
/// (LDS layout and budget, which threads copy what) is checked by the mainloop
/// (mainloop/lds_multistage.hpp).
///
/// Which combinations compile. Each rule is a static_assert on a TilePolicyRules (or mainloop
/// rules) value; its sentence is quoted, and the case
/// in [brackets] (tests/compile_fail/<case>.cpp, `ctest -R compile_fail`) breaks it and checks that
/// the compile fails with that sentence. T = threads = WavesM x WavesN x wave size (64 on CDNA, 32
/// on NVIDIA); WM = BlockM / WavesM, WN = BlockN / WavesN (the wave tile).
///
/// Shape (here):
///   1. BlockM, BlockN, BlockK, WavesM, WavesN > 0: "tile sizes and wave counts must be positive"
///      [tile_positive]
///   2. BlockM % WavesM == 0 and BlockN % WavesN == 0: "the block tile must split evenly over the
///      waves" [tile_waves_split]
///   3. WM % Atom::kM == 0: "the wave tile's M extent must be a whole number of atoms (Atom::kM)"
///      [tile_wave_m_atoms]
///   4. WN % Atom::kN == 0: "the wave tile's N extent must be a whole number of atoms (Atom::kN)"
///      [tile_wave_n_atoms]
///   5. BlockK % Atom::kK == 0 (kK: 128 gfx950 16x16x128, 64 its 32x32x64, 32 gfx942 16x16x32 and
///      Hopper, 16 gfx942 32x32x16): "BlockK must be a multiple of the atom's K"
///      [tile_block_k_atoms]
///   6. BlockK % 16 == 0 (implied by 5 for every shipped atom): "BlockK must be a multiple of 16:
///      global loads move 16 bytes" [tile_block_k_16]
///   7. Stages >= 2: "the mainloop needs at least two LDS stages (2 = double buffer)" [tile_stages]
///   8. T <= 1024: "at most 1024 threads per workgroup" [tile_threads]
/// Budgets (9: the mainloop's SharedStorage, mainloop/lds_multistage.hpp; 10: here):
///   9. LDS: Stages x (BlockM + BlockN) x (BlockK + Atom::kLdsReadBytes) <= Arch::kLdsBytes (rows
///      padded by the atom's read width, tile/lds_layout.hpp: 16 on gfx950 and Hopper, 8 on gfx942;
///      160 KiB gfx950, 64 KiB gfx942, 227 KiB sm90): "the LDS stages do not fit this target's LDS:
///      shrink the tile, BlockK or Stages" [tile_lds_budget]
///  10. Registers: WM x WN / wave size FP32 accumulators per thread, at most half of
///      Arch::kMaxAccumulatorRegs (256 CDNA, 160 sm90) and half of registers_per_lane(waves) (CDNA:
///      512 / ceil(waves / 4), sm90: 255): "too many FP32 accumulators per thread for this target
///      (each K-blocked or promoted accumulator also needs a partial-sum copy): use more waves or a
///      smaller tile" [tile_accumulator_budget]
/// Thread copies (tile/global_to_lds.hpp, by the threads the mainloop picks: all T):
///  11. BlockM x BlockK / 16, and for mk_nk_mn BlockN x BlockK / 16 (16-byte vectors), are
///      multiples of T: "each thread must copy a whole number of 16-byte vectors of the A and B
///      tiles" [tile_copy_vectors]
///  12. mk_kn_mn only: BlockN % 16 == 0, and the (BlockN / 16) x (BlockK / 4) blocks of B are a
///      multiple of T or fewer than T: "mk_kn_mn: B is copied as 4 (k) x 16 (n) blocks, whole
///      blocks per thread (or at most one per thread when the tile has fewer blocks than threads)"
///      [kn_b_blocks]
/// Scales and accumulation (mainloop/lds_multistage.hpp, per GemmConfig):
///  13. K-blocked scales (Blockwise; Mx32 on an atom without hardware scaling): the scale block's K
///      and BlockK divide one another: "K-blocked scales: the scale block along K and BlockK must
///      divide one another" [scale_block_k_divides] [scale_block_k_divides_cdna3]
///  14. Blockwise<bm, bn, bk>: bk % Atom::kK == 0 (gfx950's 16x16x128: bk a multiple of 128):
///      "Blockwise scales: the K-scale block (Blockwise<.., .., BlockK>) must be a multiple of the
///      atom's K (Atom::kK: 128 for gfx950's 16x16x128 MFMA, 64 for its 32x32x64, 32 for gfx942's
///      16x16x32 and Hopper's atom, 16 for gfx942's 32x32x16)" [blockwise_k_atoms]
///      [blockwise_k_atoms_cdna4]
///  15. Mx32 on an atom without hardware E8M0 scaling: 32 % Atom::kK == 0: "MX-32 scales on an atom
///      without hardware E8M0 scaling are applied per 32 K, so the atom's K must divide 32"
///      [mx32_software_atom_k]
///  16. PromoteEvery<K>: K % Atom::kK == 0: "promotion interval (PromoteEvery<K>) must be a
///      multiple of the atom's K" [promotion_atoms]
///  17. Promoted or K-blocked accumulation (Hopper's default, Blockwise, software MX-32) keeps a
///      second accumulator set: 2 x accumulators <= Arch::kMaxAccumulatorRegs and <= 3/4 of
///      registers_per_lane(waves): "promoted/K-blocked accumulation needs a second set of
///      accumulators, and with it more than 3/4 of the registers a thread may use at this block
///      size: use fewer waves per SIMD or a smaller wave tile (gfx950 with Blockwise scales:
///      Cdna4KBlocked)" [partial_accumulator_budget]
/// Atoms (arch/): operands in the target's encoding: gfx950 and Hopper OCP (e4m3fn / e5m2), gfx942
/// FNUZ: "gfx950 MFMA computes OCP fp8 (e4m3fn / e5m2): FNUZ e4m3fnuz / e5m2fnuz bytes would be
/// read as different numbers" [atom_ocp_gfx950], "gfx942 MFMA computes
/// FNUZ fp8 (e4m3fnuz / e5m2fnuz): OCP e4m3fn / e5m2 bytes would be read as different numbers"
/// [atom_fnuz_gfx942]. Properties of an atom itself, which every shipped atom has and so no case
/// breaks: a hardware MX-32 atom's K is 32 x (wave size / kM) (the mainloop's "hardware MX-32
/// atoms ..." sentence); with cp.async (Hopper) the padded rows stay 16-byte aligned ("async copies
/// write 16-byte LDS vectors"); BlockK is an even multiple of the atom's LDS read width
/// (tile/lds_layout.hpp: "BlockK must be an even multiple of the atom's LDS read width ...",
/// implied by rule 5 for every shipped atom); and one atom runs on one wave ("TilePolicy runs one
/// atom per wave; a warpgroup atom needs a policy of its own").
/// The shape rules of TilePolicy<BlockM, BlockN, BlockK, WavesM, WavesN, Atom, Stages> as values
/// (rules 1-8 and 10 above, and "one atom per wave"): each rule's bool next to its sentence, kValid
/// and why_not() (the first failing rule's sentence, nullptr when valid). Evaluates on any
/// numbers without a compile error; Atom itself must be a complete atom type.
template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, class AtomT, int Stages = 2>
struct TilePolicyRules {
  using Atom = AtomT;
  using Arch = typename Atom::Arch;
  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK, kStages = Stages;
  static constexpr int kWaves = WavesM * WavesN;
  static constexpr int kThreads = kWaves * Atom::kThreads;
  static constexpr int kWaveTileM = rules::quotient(BlockM, WavesM);
  static constexpr int kWaveTileN = rules::quotient(BlockN, WavesN);
  static constexpr int kAtomsM = rules::quotient(kWaveTileM, Atom::kM);
  static constexpr int kAtomsN = rules::quotient(kWaveTileN, Atom::kN);
  static constexpr int kAccumulators = kAtomsM * kAtomsN * Atom::kCRegs;
  static constexpr int kRegisterBudget = Arch::registers_per_lane(rules::at_least_one(kWaves));

#define FP8GEMM_RULE_TILE_POSITIVE "tile sizes and wave counts must be positive"
  static constexpr bool kPositive =
      BlockM > 0 && BlockN > 0 && BlockK > 0 && WavesM > 0 && WavesN > 0;
#define FP8GEMM_RULE_TILE_WAVES_SPLIT "the block tile must split evenly over the waves"
  static constexpr bool kWavesSplit =
      rules::divides(WavesM, BlockM) && rules::divides(WavesN, BlockN);
#define FP8GEMM_RULE_TILE_WAVE_M_ATOMS \
  "the wave tile's M extent must be a whole number of atoms (Atom::kM)"
  static constexpr bool kWaveMAtoms = rules::divides(Atom::kM, kWaveTileM);
#define FP8GEMM_RULE_TILE_WAVE_N_ATOMS \
  "the wave tile's N extent must be a whole number of atoms (Atom::kN)"
  static constexpr bool kWaveNAtoms = rules::divides(Atom::kN, kWaveTileN);
#define FP8GEMM_RULE_TILE_BLOCK_K_ATOMS "BlockK must be a multiple of the atom's K"
  static constexpr bool kBlockKAtoms = rules::divides(Atom::kK, BlockK);
#define FP8GEMM_RULE_TILE_BLOCK_K_16 "BlockK must be a multiple of 16: global loads move 16 bytes"
  static constexpr bool kBlockK16 = BlockK % 16 == 0;
#define FP8GEMM_RULE_TILE_STAGES "the mainloop needs at least two LDS stages (2 = double buffer)"
  static constexpr bool kTwoStages = Stages >= 2;
#define FP8GEMM_RULE_TILE_ONE_ATOM_PER_WAVE \
  "TilePolicy runs one atom per wave; a warpgroup atom needs a policy of its own"
  static constexpr bool kOneAtomPerWave = Atom::kThreads == Arch::kWaveSize;
#define FP8GEMM_RULE_TILE_THREADS "at most 1024 threads per workgroup"
  static constexpr bool kThreadLimit = kThreads <= 1024;
#define FP8GEMM_RULE_TILE_ACCUMULATOR_BUDGET                                           \
  "too many FP32 accumulators per thread for this target (each K-blocked or promoted " \
  "accumulator also needs a partial-sum copy): use more waves or a smaller tile"
  static constexpr bool kAccumulatorBudget =
      kAccumulators <= Arch::kMaxAccumulatorRegs / 2 && kAccumulators <= kRegisterBudget / 2;

  static constexpr char const* why_not() {
    // A local array: nvcc (EDG) sees a class template's static member array with its bound
    // still unknown while kValid's initializer calls why_not(), and refuses first_failing.
    constexpr Rule kRules[] = {
        {kPositive, FP8GEMM_RULE_TILE_POSITIVE},
        {kWavesSplit, FP8GEMM_RULE_TILE_WAVES_SPLIT},
        {kWaveMAtoms, FP8GEMM_RULE_TILE_WAVE_M_ATOMS},
        {kWaveNAtoms, FP8GEMM_RULE_TILE_WAVE_N_ATOMS},
        {kBlockKAtoms, FP8GEMM_RULE_TILE_BLOCK_K_ATOMS},
        {kBlockK16, FP8GEMM_RULE_TILE_BLOCK_K_16},
        {kTwoStages, FP8GEMM_RULE_TILE_STAGES},
        {kOneAtomPerWave, FP8GEMM_RULE_TILE_ONE_ATOM_PER_WAVE},
        {kThreadLimit, FP8GEMM_RULE_TILE_THREADS},
        {kAccumulatorBudget, FP8GEMM_RULE_TILE_ACCUMULATOR_BUDGET},
    };
    return first_failing(kRules);
  }
  static constexpr bool kValid = why_not() == nullptr;
};

template <int BlockM, int BlockN, int BlockK, int WavesM, int WavesN, class AtomT, int Stages = 2>
struct TilePolicy {
  using Rules = TilePolicyRules<BlockM, BlockN, BlockK, WavesM, WavesN, AtomT, Stages>;
  using Atom = AtomT;
  using Arch = typename Atom::Arch;
  using ElementA = typename Atom::ElementA;
  using ElementB = typename Atom::ElementB;

  static constexpr int kBlockM = BlockM, kBlockN = BlockN, kBlockK = BlockK;
  static constexpr int kWavesM = WavesM, kWavesN = WavesN, kStages = Stages;
  static constexpr int kWaves = Rules::kWaves;
  static constexpr int kThreads = Rules::kThreads;
  static constexpr int kWaveTileM = Rules::kWaveTileM;  // rows of C one wave owns
  static constexpr int kWaveTileN = Rules::kWaveTileN;  // columns of C one wave owns
  static constexpr int kAtomsM = Rules::kAtomsM;
  static constexpr int kAtomsN = Rules::kAtomsN;
  static constexpr int kKSteps = rules::quotient(BlockK, Atom::kK);  // atoms along K per K-tile

  static constexpr int kAccumulators = Rules::kAccumulators;  // FP32 per thread
  /// Registers a thread may hold (arch and block size); accumulators may take at most half, the
  /// rest is fragments, the staged copy and addresses.
  static constexpr int kRegisterBudget = Rules::kRegisterBudget;

  static_assert(Rules::kPositive, FP8GEMM_RULE_TILE_POSITIVE);
  static_assert(Rules::kWavesSplit, FP8GEMM_RULE_TILE_WAVES_SPLIT);
  static_assert(Rules::kWaveMAtoms, FP8GEMM_RULE_TILE_WAVE_M_ATOMS);
  static_assert(Rules::kWaveNAtoms, FP8GEMM_RULE_TILE_WAVE_N_ATOMS);
  static_assert(Rules::kBlockKAtoms, FP8GEMM_RULE_TILE_BLOCK_K_ATOMS);
  static_assert(Rules::kBlockK16, FP8GEMM_RULE_TILE_BLOCK_K_16);
  static_assert(Rules::kTwoStages, FP8GEMM_RULE_TILE_STAGES);
  static_assert(Rules::kOneAtomPerWave, FP8GEMM_RULE_TILE_ONE_ATOM_PER_WAVE);
  static_assert(Rules::kThreadLimit, FP8GEMM_RULE_TILE_THREADS);
  static_assert(Rules::kAccumulatorBudget, FP8GEMM_RULE_TILE_ACCUMULATOR_BUDGET);
};

/// TilePolicyRules of a TilePolicy, without instantiating it (so on an invalid one too).
template <class Policy>
struct TilePolicyRulesOf {
  using type = TilePolicyRules<Policy::kBlockM, Policy::kBlockN, Policy::kBlockK, Policy::kWavesM,
                               Policy::kWavesN, typename Policy::Atom, Policy::kStages>;
};
template <int BM, int BN, int BK, int WM, int WN, class A, int S>
struct TilePolicyRulesOf<TilePolicy<BM, BN, BK, WM, WN, A, S>> {
  using type = TilePolicyRules<BM, BN, BK, WM, WN, A, S>;
};

}  // namespace fp8gemm
