// SPDX-License-Identifier: MIT
/// What every mainloop shares (mainloop layer): a thread's FP32 accumulators, where they sit in the
/// block tile, and how a portable (TilePolicy) mainloop accumulates (PromotionPlan).
#pragma once

#include <type_traits>

#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/mainloop_rules.hpp"
#include "fp8gemm/policy/tile_policy.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm {

/// FP32 accumulators of one thread: [kAtomsM][kAtomsN][Atom::kCRegs].
template <class Policy>
struct Accumulators {
  float v[Policy::kAtomsM][Policy::kAtomsN][Policy::Atom::kCRegs];
  FP8GEMM_DEVICE void clear() {
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Policy::Atom::kCRegs; ++r) v[i][j][r] = 0.0f;
      }
    }
  }
};

/// Where this thread's accumulators sit in the block tile: wave (wave_m, wave_n), lane.
template <class Policy>
struct ThreadCoords {
  int lane, wave_m, wave_n;
  FP8GEMM_DEVICE static ThreadCoords current() {
    int const tid = arch::thread_idx();
    int const wave = tid / Policy::Atom::kThreads;
    return {tid % Policy::Atom::kThreads, wave / Policy::kWavesN, wave % Policy::kWavesN};
  }
  /// Row (in the block tile) of accumulator register r of atom row i.
  FP8GEMM_DEVICE int row(int i, int r) const {
    return wave_m * Policy::kWaveTileM + i * Policy::Atom::kM + Policy::Atom::c_row(lane, r);
  }
  FP8GEMM_DEVICE int col(int j, int r) const {
    return wave_n * Policy::kWaveTileN + j * Policy::Atom::kN + Policy::Atom::c_col(lane, r);
  }
};

/// How a portable (TilePolicy) mainloop accumulates, for LdsMultistageMainloop and
/// BufferLdsPingPongMainloop alike: MX-32 in the MFMA itself (gfx950), or K-blocked scales applied
/// per scale block of K (Blockwise; MX-32 elsewhere), or promotion every PromoteKV of K, or none.
template <class Policy, class Granularity, int PromoteKV>
struct PromotionPlan {
  using Rules = PromotionRules<typename TilePolicyRulesOf<Policy>::type, Granularity, PromoteKV>;
  /// MX-32 on an atom whose instruction applies E8M0 scales itself (gfx950): no promotion.
  static constexpr bool kHardwareMx = Rules::kHardwareMx;
  static constexpr bool kKBlockedScales = Rules::kKBlockedScales;
  /// K between promotions: the scale block (at most BlockK) when K-blocked, else PromoteKV.
  static constexpr int kPromoteK = Rules::kPromoteK;
  static constexpr bool kUsePartial = Rules::kUsePartial;  // a second accumulator set
  static_assert(Rules::kPartialBudget, FP8GEMM_RULE_PARTIAL_ACCUMULATOR_BUDGET);
};

}  // namespace fp8gemm
