// SPDX-License-Identifier: MIT
/// The K loop (mainloop layer): global -> LDS (kStages stages; through registers, or cp.async straight
/// into LDS where the arch has it) -> fragments -> atom,
/// FP32 accumulators in registers throughout. Generic over the atom and the wave size.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/gemm_params.hpp"
#include "fp8gemm/tile/global_to_lds.hpp"

namespace fp8gemm {

/// LDS for one workgroup: kStages stages of the A and B K-tiles, both K contiguous.
template <class Policy>
struct SharedStorage {
  std::uint8_t a[Policy::kStages][Policy::kLdsStageABytes];  // [kBlockM][kLdsRowBytes] per stage
  std::uint8_t b[Policy::kStages][Policy::kLdsStageBBytes];  // [kBlockN][kLdsRowBytes] per stage
};

/// FP32 accumulators of one thread: [kAtomsM][kAtomsN][Atom::kCRegs].
template <class Policy>
struct Accumulators {
  float v[Policy::kAtomsM][Policy::kAtomsN][Policy::Atom::kCRegs];
  FP8GEMM_DEVICE void clear() {
FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i)
FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j)
FP8GEMM_UNROLL
        for (int r = 0; r < Policy::Atom::kCRegs; ++r) v[i][j][r] = 0.0f;
  }
};

/// Where this thread's accumulators sit in the block tile: wave (wave_m, wave_n), lane.
template <class Policy>
struct ThreadCoords {
  int lane, wave_m, wave_n;
  FP8GEMM_DEVICE static ThreadCoords current() {
    int const tid = arch::thread_idx();
    int const wave = tid / Policy::Arch::kWaveSize;
    return {tid % Policy::Arch::kWaveSize, wave / Policy::kWavesN, wave % Policy::kWavesN};
  }
  /// Row (in the block tile) of accumulator register r of atom row i.
  FP8GEMM_DEVICE int row(int i, int r) const {
    return wave_m * Policy::kWaveTileM + i * Policy::Atom::kM + Policy::Atom::c_row(lane, r);
  }
  FP8GEMM_DEVICE int col(int j, int r) const {
    return wave_n * Policy::kWaveTileN + j * Policy::Atom::kN + Policy::Atom::c_col(lane, r);
  }
};

/// kStages LDS stages; while the waves multiply K-tile t, K-tile t + kStages - 1 travels into LDS
/// stage (t - 1) mod kStages: straight from global memory with async copies (cp.async, up to
/// kStages - 1 tiles in flight), or global -> registers before the multiply and registers -> LDS
/// after it. One barrier per K-tile.
///
/// Accumulation: with K-blocked scales (Blockwise, Mx32) each scale block of K is accumulated into
/// `partial`, then acc += (partial * s_a(m, kb)) * s_b(n, kb). Without them, partial sums are promoted
/// into acc every kPromoteK of K (the Hopper default, 128), or accumulated straight into acc when
/// kPromoteK == 0 (FastAccumulation; the CDNA default, where MFMA accumulates in FP32).
template <class Config>
struct LdsMultistageMainloop {
  using Policy = typename Config::Policy;
  using Atom = typename Policy::Atom;
  using Granularity = typename Config::Granularity;
  using Params = typename Config::Params;
  static constexpr int kStages = Policy::kStages;
  /// MX-32 on an atom whose instruction applies E8M0 scales itself (gfx950): no promotion.
  static constexpr bool kHardwareMx =
      std::is_same_v<Granularity, Mx32> && arch::has_hardware_mx32<Atom>::value;
  static constexpr bool kKBlockedScales = Granularity::kBlockK > 0 && !kHardwareMx;
  static constexpr int kPromoteK = kKBlockedScales
                                       ? (Granularity::kBlockK < Policy::kBlockK ? Granularity::kBlockK
                                                                                 : Policy::kBlockK)
                                       : Config::kPromoteK;
  static constexpr bool kUsePartial = kPromoteK > 0;
  static constexpr int kStepsPerPromote = kUsePartial ? kPromoteK / Atom::kK : 1;
  static constexpr int kBanks = Policy::Arch::kLdsBanks;

  static constexpr int kScaleBlockK = kKBlockedScales ? Granularity::kBlockK : Policy::kBlockK;
  static_assert(kScaleBlockK % Policy::kBlockK == 0 || Policy::kBlockK % kScaleBlockK == 0,
                "K-blocked scales: the scale block along K and BlockK must divide one another");
  static_assert(kPromoteK % Atom::kK == 0,
                "promotion interval (or K-scale block) must be whole atoms along K: MX-32 needs an "
                "atom with K <= 32, or one that applies E8M0 scales in hardware");
  static_assert(!kHardwareMx || Atom::kK == 32 * (Policy::Arch::kWaveSize / Atom::kM),
                "hardware MX-32 atoms take one E8M0 byte per lane, lane l's for row l % kM and the MX "
                "block 32 * (l / kM) of the atom's K: kK must be 32 * (wave size / kM)");
  static_assert(!kUsePartial || (2 * Policy::kAccumulators <= Policy::Arch::kMaxAccumulatorRegs &&
                                 2 * Policy::kAccumulators <= Policy::kRegisterBudget * 3 / 4),
                "promoted/K-blocked accumulation needs a second set of accumulators, and with it more "
                "than 3/4 of the registers a thread may use at this block size: use fewer waves per "
                "SIMD or a smaller wave tile (gfx950 with Blockwise scales: Cdna4KBlocked)");

  /// K-contiguous tiles go global -> LDS without registers where the arch can (cp.async), through
  /// registers otherwise; mk_kn_mn B is transposed on the way, so it always goes through registers.
  template <int kRows>
  using RowCopy = std::conditional_t<Policy::Arch::kAsyncCopy, AsyncRowMajorTileCopy<Policy, kRows>,
                                     RowMajorTileCopy<Policy, kRows>>;
  using CopyA = RowCopy<Policy::kBlockM>;
  using CopyB = std::conditional_t<Config::kLayoutB == LayoutB::kNK, RowCopy<Policy::kBlockN>,
                                   TransposedTileCopyB<Policy>>;

  /// acc += A[m0:, k_tiles] * B[k_tiles, n0:] for K-tiles [k_tile_begin, k_tile_end).
  FP8GEMM_DEVICE void operator()(Params const& p, int m0, int n0, int k_tile_begin,
                                 int k_tile_end, SharedStorage<Policy>& lds,
                                 Accumulators<Policy>& acc) const {
    ThreadCoords<Policy> const tc = ThreadCoords<Policy>::current();
    CopyA copy_a;
    CopyB copy_b;
    Accumulators<Policy> partial;
    partial.clear();
    int const num_tiles = k_tile_end - k_tile_begin;

    // Prologue: K-tiles 0 .. kStages-2 into stages 0 .. kStages-2, one copy group per stage.
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < num_tiles) {
        issue_tile(copy_a, copy_b, p, m0, n0, k_tile_begin + s, lds, s);
        copy_a.land(lds.a[s], "A tile store");
        copy_b.land(lds.b[s], "B tile store");
      }
      arch::async_copy_commit();
    }

    int steps_in_chunk = 0;  // k-steps accumulated into `partial` since the last promotion
    int chunk_k = k_tile_begin * Policy::kBlockK;  // first k of the current promotion chunk
    for (int t = 0; t < num_tiles; ++t) {
      int const stage = t % kStages;
      int const ahead = t + kStages - 1;  // the K-tile this iteration brings into LDS
      bool const has_ahead = ahead < num_tiles;
      arch::async_copy_wait<kStages - 2>();  // this thread's copies of K-tile t have landed
      arch::sync_block();  // waits for: K-tile t in LDS from every thread, and every wave done
                           // reading stage (t - 1) % kStages, which K-tile `ahead` now overwrites
      if (has_ahead) issue_tile(copy_a, copy_b, p, m0, n0, k_tile_begin + ahead, lds, ahead % kStages);
      arch::async_copy_commit();  // one group per iteration, empty or not, keeps the count fixed

FP8GEMM_UNROLL
      for (int ks = 0; ks < Policy::kKSteps; ++ks) {
        int const k_step = (k_tile_begin + t) * Policy::kBlockK + ks * Atom::kK;  // first k of this step
        multiply_step(p, tc, m0, n0, k_step, lds.a[stage], lds.b[stage], ks, kUsePartial ? partial : acc);
        if constexpr (kUsePartial) {
          if (++steps_in_chunk == kStepsPerPromote) {
            promote(p, tc, m0, n0, chunk_k, partial, acc);
            steps_in_chunk = 0;
            chunk_k += kPromoteK;
          }
        }
      }

      if (has_ahead) {  // register-staged copies: registers -> LDS (visible after the next barrier)
        copy_a.land(lds.a[ahead % kStages], "A tile store");
        copy_b.land(lds.b[ahead % kStages], "B tile store");
      }
    }
    if constexpr (kUsePartial) {
      if (steps_in_chunk > 0) promote(p, tc, m0, n0, chunk_k, partial, acc);
    }
  }

 private:
  /// Starts K-tile k_tile on its way to LDS stage `stage` (async copies write it directly,
  /// register-staged ones hold it until land).
  FP8GEMM_DEVICE static void issue_tile(CopyA& copy_a, CopyB& copy_b, Params const& p, int m0,
                                        int n0, int k_tile, SharedStorage<Policy>& lds, int stage) {
    int const k0 = k_tile * Policy::kBlockK;
    copy_a.issue(reinterpret_cast<std::uint8_t const*>(p.a), p.lda, p.m, p.k, m0, k0, lds.a[stage],
                 "A tile store");
    copy_b.issue(reinterpret_cast<std::uint8_t const*>(p.b), p.ldb, p.n, p.k, n0, k0, lds.b[stage],
                 "B tile store");
  }

  /// One atom-deep K step: the wave's A fragments LDS -> registers, then per atom column one B
  /// fragment and kAtomsM atoms. NOTE: B is read column by column so only one B fragment is live
  /// (the A fragments are reused by every column).
  FP8GEMM_DEVICE static void multiply_step(Params const& p, ThreadCoords<Policy> const& tc, int m0,
                                           int n0, int k_step, std::uint8_t const* lds_a,
                                           std::uint8_t const* lds_b, int ks,
                                           Accumulators<Policy>& d) {
    typename Atom::FragA fa[Policy::kAtomsM];
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i)
      load_a(fa[i], lds_a, tc.lane, tc.wave_m * Policy::kWaveTileM + i * Atom::kM, ks * Atom::kK);
    // MX-32 in hardware: this lane's E8M0 bytes, for row/column lane % kM of each atom and the MX
    // block lane / kM of the atom's K (by lane index, per the ISA; not the k values the lane's
    // fragment holds, which straddle two blocks on gfx950).
    [[maybe_unused]] std::uint8_t sa[Policy::kAtomsM];
    [[maybe_unused]] int const kb = k_step / 32 + tc.lane / Atom::kM;
    if constexpr (kHardwareMx) {
      FP8GEMM_UNROLL
      for (int i = 0; i < Policy::kAtomsM; ++i)
        sa[i] = mx_scale_byte(p.scale_a, p.scale_a_cols, p.m,
                              m0 + tc.wave_m * Policy::kWaveTileM + i * Atom::kM + tc.lane % Atom::kM, kb);
    }
    FP8GEMM_UNROLL
    for (int j = 0; j < Policy::kAtomsN; ++j) {
      typename Atom::FragB fb;
      load_b(fb, lds_b, tc.lane, tc.wave_n * Policy::kWaveTileN + j * Atom::kN, ks * Atom::kK);
      if constexpr (kHardwareMx) {
        std::uint8_t const sb = mx_scale_byte(
            p.scale_b, p.scale_b_cols, p.n, n0 + tc.wave_n * Policy::kWaveTileN + j * Atom::kN + tc.lane % Atom::kN, kb);
        FP8GEMM_UNROLL
        for (int i = 0; i < Policy::kAtomsM; ++i) Atom::mma_scaled(d.v[i][j], fa[i], fb, sa[i], sb);
      } else {
        FP8GEMM_UNROLL
        for (int i = 0; i < Policy::kAtomsM; ++i) Atom::mma(d.v[i][j], fa[i], fb);
      }
    }
    (void)p, (void)m0, (void)n0;
  }

  /// The atom's fragment loads (its own, e.g. ldmatrix, or one LDS access per chunk).
  FP8GEMM_DEVICE static void load_a(typename Atom::FragA& f, std::uint8_t const* lds, int lane,
                                    int row0, int k0) {
    if constexpr (arch::has_fragment_loads<Atom>::value) {
      Atom::template load_a<kBanks>(f, lds, lane, row0, k0, Policy::kLdsRowBytes);
    } else {
      arch::load_fragment_a_by_chunks<Atom, kBanks>(f, lds, lane, row0, k0, Policy::kLdsRowBytes);
    }
  }
  FP8GEMM_DEVICE static void load_b(typename Atom::FragB& f, std::uint8_t const* lds, int lane,
                                    int col0, int k0) {
    if constexpr (arch::has_fragment_loads<Atom>::value) {
      Atom::template load_b<kBanks>(f, lds, lane, col0, k0, Policy::kLdsRowBytes);
    } else {
      arch::load_fragment_b_by_chunks<Atom, kBanks>(f, lds, lane, col0, k0, Policy::kLdsRowBytes);
    }
  }

  /// E8M0 scale byte of (row, MX block kb); rows or blocks outside the matrix multiply zero-filled
  /// data, so they get 2^0 (127).
  template <class Scale>
  FP8GEMM_DEVICE static std::uint8_t mx_scale_byte(Scale const* scales, std::int64_t cols, int rows,
                                                   int row, int kb) {
    if constexpr (std::is_same_v<Scale, e8m0>) {
      return (row < rows && kb < cols) ? scales[row * cols + kb].bits : std::uint8_t{127};
    } else {
      return 127;  // not reached: hardware MX needs e8m0 scales
    }
  }

  /// acc += (partial * s_a(m, kb)) * s_b(n, kb), kb = the scale block of k = chunk_k; partial = 0.
  /// Chunks entirely past K (zero-filled tail) hold zeros and are skipped. NOTE: the scales are
  /// loaded once per atom row / column register ((kAtomsM + kAtomsN) * kCRegs loads), not once per
  /// accumulator; elements outside the matrix get scale 0.
  FP8GEMM_DEVICE static void promote(Params const& p, ThreadCoords<Policy> const& tc, int m0,
                                     int n0, int chunk_k, Accumulators<Policy>& partial,
                                     Accumulators<Policy>& acc) {
    if (chunk_k >= p.k) return;
    [[maybe_unused]] float sa[Policy::kAtomsM][Atom::kCRegs];
    [[maybe_unused]] float sb[Policy::kAtomsN][Atom::kCRegs];
    if constexpr (kKBlockedScales) {
      FP8GEMM_UNROLL
      for (int i = 0; i < Policy::kAtomsM; ++i)
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          sa[i][r] = m < p.m ? Config::a_block_scale(p, m, chunk_k) : 0.0f;
        }
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j)
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const n = n0 + tc.col(j, r);
          sb[j][r] = n < p.n ? Config::b_block_scale(p, n, chunk_k) : 0.0f;
        }
    }
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          if constexpr (kKBlockedScales) {
            acc.v[i][j][r] += Config::scale_twice(partial.v[i][j][r], sa[i][r], sb[j][r]);
          } else {
            acc.v[i][j][r] += partial.v[i][j][r];
          }
          partial.v[i][j][r] = 0.0f;
        }
      }
    }
  }
};

}  // namespace fp8gemm
