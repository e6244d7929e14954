// SPDX-License-Identifier: MIT
/// The K loop (mainloop layer): global -> LDS (kStages stages; through registers, or cp.async
/// straight into LDS where the arch has it) -> fragments -> atom, FP32 accumulators in registers
/// throughout. Generic over the atom and the wave size. Its contract, all in this file: Arguments
/// (operand and scale views), SharedStorage, can_implement, and operator() over a K-tile range of
/// one output tile.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/common.hpp"
#include "fp8gemm/mainloop/mainloop_rules.hpp"
#include "fp8gemm/mainloop/operand_checks.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/global_to_lds.hpp"
#include "fp8gemm/tile/lds_layout.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// kStages LDS stages; while the waves multiply K-tile t, K-tile t + kStages - 1 travels into LDS
/// stage (t - 1) mod kStages: straight from global memory with async copies (cp.async, up to
/// kStages - 1 tiles in flight), or global -> registers before the multiply and registers -> LDS
/// after it. One barrier per K-tile. Every thread of the workgroup copies (kCopyThreads).
///
/// Accumulation: with K-blocked scales (Blockwise, Mx32 without hardware scales) each scale block
/// of K is accumulated into `partial`, then acc += (partial * s_a(m, kb)) * s_b(n, kb). Without
/// them, partial sums are promoted into acc every kPromoteK of K (the Hopper default, 128), or
/// accumulated straight into acc when kPromoteK == 0 (FastAccumulation; the CDNA default, where
/// MFMA accumulates in FP32).
template <class PolicyT, class GranularityT, LayoutB kLayoutB, int kPromoteKV>
struct LdsMultistageMainloop {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  using Accumulators = fp8gemm::Accumulators<Policy>;
  using Coords = ThreadCoords<Policy>;  // where each accumulator register sits in the tile
  static constexpr int kStages = Policy::kStages;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kCopyThreads = kThreads;  // every thread copies tiles

  /// What one GEMM's mainloop reads. a: [M, K] (rows M, cols K); b: [N, K] for kNK, [K, N] for
  /// kKN (rows x cols as stored); the scales per granularity (read here only when K-blocked).
  struct Arguments {
    MatrixView<ElementA> a;
    MatrixView<ElementB> b;
    ScaleView<Granularity> scale_a;
    ScaleView<Granularity> scale_b;
  };

  /// LDS tiles, both K contiguous: A [kBlockM][kBlockK], B [kBlockN][kBlockK] (B is N x K in LDS
  /// whatever its global layout), rows padded for the atom's reads (tile/lds_layout.hpp).
  using LdsLayoutA = FragmentReadLayout<Policy::kBlockM, Policy::kBlockK, Atom>;
  using LdsLayoutB = FragmentReadLayout<Policy::kBlockN, Policy::kBlockK, Atom>;
  struct SharedStorage {
    std::uint8_t a[kStages][LdsLayoutA::kBytes];  // LdsLayoutA per stage
    std::uint8_t b[kStages][LdsLayoutB::kBytes];  // LdsLayoutB per stage
  };
  using Rules = LdsMultistageRules<Policy, Granularity, kLayoutB, kPromoteKV>;
  static_assert(Rules::kLdsBudget, FP8GEMM_RULE_LDS_BUDGET);
  static_assert(static_cast<std::size_t>(Rules::kLdsBytes) == sizeof(SharedStorage),
                "the rules size the stages as laid out");

  using Promotion = PromotionPlan<Policy, Granularity, kPromoteKV>;
  static constexpr bool kHardwareMx = Promotion::kHardwareMx;
  static constexpr bool kKBlockedScales = Promotion::kKBlockedScales;
  static constexpr int kPromoteK = Promotion::kPromoteK;
  static constexpr bool kUsePartial = Promotion::kUsePartial;
  static constexpr int kStepsPerPromote = kUsePartial ? kPromoteK / Atom::kK : 1;

  /// Blocks per SM to ask the compiler for, where it takes the hint (NVIDIA): two when the FP32
  /// accumulators, with their partial copy, take at most 64 registers per thread, two blocks get at
  /// least 128 registers per thread, and two blocks' LDS stages fit an SM; else one. NOTE:
  /// Sm90Default with FastAccumulation runs two blocks per SM only so (unhinted, ptxas can take
  /// more than 128 registers: one block per SM; docs/performance.md#multistage-min-blocks-hint).
  static constexpr int min_blocks_per_sm() {
    if constexpr (Arch::kTakesMinBlocksHint) {
      bool const two = (kUsePartial ? 2 : 1) * Policy::kAccumulators <= 64 &&
                       2 * kThreads * 128 <= Arch::kRegistersPerSm &&
                       2 * static_cast<int>(sizeof(SharedStorage)) <= Arch::kLdsPerSm;
      return two ? 2 : 1;
    } else {
      return 1;
    }
  }

  static constexpr int kMinBlocksPerSm = min_blocks_per_sm();

  static constexpr int kScaleBlockK = kKBlockedScales ? Granularity::kBlockK : Policy::kBlockK;
  static_assert(Rules::kScaleBlockKDivides, FP8GEMM_RULE_SCALE_BLOCK_K_DIVIDES);
  static_assert(Rules::kBlockwiseKAtoms, FP8GEMM_RULE_BLOCKWISE_K_ATOMS);
  static_assert(Rules::kMx32AtomK, FP8GEMM_RULE_MX32_SOFTWARE_ATOM_K);
  static_assert(Rules::kPromotionAtoms, FP8GEMM_RULE_PROMOTION_ATOMS);
  static_assert(Rules::kHardwareMxAtomK, FP8GEMM_RULE_HARDWARE_MX32_ATOM_K);

  /// K-contiguous tiles go global -> LDS without registers where the arch can (cp.async), through
  /// registers otherwise; mk_kn_mn B is transposed on the way, so it always goes through registers.
  template <class Layout>
  using RowCopy = std::conditional_t<Arch::kAsyncCopy,
                                     AsyncRowMajorTileCopy<Layout, kCopyThreads, Arch::kLdsBanks>,
                                     RowMajorTileCopy<Layout, kCopyThreads, Arch::kLdsBanks>>;
  using CopyA = RowCopy<LdsLayoutA>;
  using CopyB = std::conditional_t<kLayoutB == LayoutB::kNK, RowCopy<LdsLayoutB>,
                                   TransposedTileCopyB<LdsLayoutB, kCopyThreads>>;
  // Instantiates the copies with the mainloop, so their rules (tile/global_to_lds.hpp) fire in any
  // build that names this mainloop, not only where the kernel body is compiled.
  static_assert(sizeof(CopyA) > 0 && sizeof(CopyB) > 0, "tile copies are complete types");

  /// What this mainloop needs of its arguments (host side); the message names the failed check.
  static Status can_implement(Arguments const& args) {
    return check_operands_for_vector_loads(args.a, args.b, kLayoutB);
  }

  /// acc += A[m0:, k_tiles] * B[k_tiles, n0:] for K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE void operator()(Arguments const& args, int m0, int n0, int k_tile_begin,
                                 int k_tile_end, SharedStorage& lds, Accumulators& acc) const {
    ThreadCoords<Policy> const tc = ThreadCoords<Policy>::current();
    CopyA copy_a;
    CopyB copy_b;
    int const copy_tid = arch::thread_idx();  // every thread copies: its index among kCopyThreads
    Accumulators partial;
    partial.clear();
    int const num_tiles = k_tile_end - k_tile_begin;

    // Prologue: K-tiles 0 .. kStages-2 into stages 0 .. kStages-2, one copy group per stage.
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < num_tiles) {
        issue_tile(copy_a, copy_b, args, m0, n0, k_tile_begin + s, lds, s, copy_tid);
        copy_a.land(lds.a[s], copy_tid);
        copy_b.land(lds.b[s], copy_tid);
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
      if (has_ahead)
        issue_tile(copy_a, copy_b, args, m0, n0, k_tile_begin + ahead, lds, ahead % kStages,
                   copy_tid);
      arch::async_copy_commit();  // one group per iteration, empty or not, keeps the count fixed

      FP8GEMM_UNROLL
      for (int ks = 0; ks < Policy::kKSteps; ++ks) {
        int const k_step =
            (k_tile_begin + t) * Policy::kBlockK + ks * Atom::kK;  // first k of this step
        multiply_step(args, tc, m0, n0, k_step, lds.a[stage], lds.b[stage], ks,
                      kUsePartial ? partial : acc);
        if constexpr (kUsePartial) {
          if (++steps_in_chunk == kStepsPerPromote) {
            promote(args, tc, m0, n0, chunk_k, partial, acc);
            steps_in_chunk = 0;
            chunk_k += kPromoteK;
          }
        }
      }

      if (has_ahead) {  // register-staged copies: registers -> LDS (visible after the next barrier)
        copy_a.land(lds.a[ahead % kStages], copy_tid);
        copy_b.land(lds.b[ahead % kStages], copy_tid);
      }
    }
    if constexpr (kUsePartial) {
      if (steps_in_chunk > 0) promote(args, tc, m0, n0, chunk_k, partial, acc);
    }
  }

 private:
  /// Starts K-tile k_tile on its way to LDS stage `stage` (async copies write it directly,
  /// register-staged ones hold it until land).
  FP8GEMM_DEVICE static void issue_tile(CopyA& copy_a, CopyB& copy_b, Arguments const& args, int m0,
                                        int n0, int k_tile, SharedStorage& lds, int stage,
                                        int tid) {
    int const k0 = k_tile * Policy::kBlockK;
    copy_a.issue(reinterpret_cast<std::uint8_t const*>(args.a.data), args.a.ld, args.a.rows,
                 args.a.cols, m0, k0, lds.a[stage], tid);
    if constexpr (kLayoutB == LayoutB::kNK) {  // b: [N, K]
      copy_b.issue(reinterpret_cast<std::uint8_t const*>(args.b.data), args.b.ld, args.b.rows,
                   args.b.cols, n0, k0, lds.b[stage], tid);
    } else {  // b: [K, N]
      copy_b.issue(reinterpret_cast<std::uint8_t const*>(args.b.data), args.b.ld, args.b.cols,
                   args.b.rows, n0, k0, lds.b[stage], tid);
    }
  }

  /// One atom-deep K step: the wave's A fragments LDS -> registers, then per atom column one B
  /// fragment and kAtomsM atoms. NOTE: B is read column by column so only one B fragment is live
  /// (the A fragments are reused by every column).
  FP8GEMM_DEVICE static void multiply_step(Arguments const& args, ThreadCoords<Policy> const& tc,
                                           int m0, int n0, int k_step, std::uint8_t const* lds_a,
                                           std::uint8_t const* lds_b, int ks, Accumulators& d) {
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
        sa[i] = mx_scale_byte(
            args.scale_a, m0 + tc.wave_m * Policy::kWaveTileM + i * Atom::kM + tc.lane % Atom::kM,
            kb);
    }
    FP8GEMM_UNROLL
    for (int j = 0; j < Policy::kAtomsN; ++j) {
      typename Atom::FragB fb;
      load_b(fb, lds_b, tc.lane, tc.wave_n * Policy::kWaveTileN + j * Atom::kN, ks * Atom::kK);
      if constexpr (kHardwareMx) {
        std::uint8_t const sb = mx_scale_byte(
            args.scale_b, n0 + tc.wave_n * Policy::kWaveTileN + j * Atom::kN + tc.lane % Atom::kN,
            kb);
        FP8GEMM_UNROLL
        for (int i = 0; i < Policy::kAtomsM; ++i) Atom::mma_scaled(d.v[i][j], fa[i], fb, sa[i], sb);
      } else {
        FP8GEMM_UNROLL
        for (int i = 0; i < Policy::kAtomsM; ++i) Atom::mma(d.v[i][j], fa[i], fb);
      }
    }
    (void)args, (void)m0, (void)n0;
  }

  /// The atom's fragment loads (its own, e.g. ldmatrix, or one LDS access per chunk).
  FP8GEMM_DEVICE static void load_a(typename Atom::FragA& f, std::uint8_t const* lds, int lane,
                                    int row0, int k0) {
    if constexpr (arch::has_fragment_loads<Atom>::value) {
      Atom::template load_a<LdsLayoutA>(f, lds, lane, row0, k0);
    } else {
      arch::load_fragment_a_by_chunks<Atom, LdsLayoutA>(f, lds, lane, row0, k0);
    }
  }
  FP8GEMM_DEVICE static void load_b(typename Atom::FragB& f, std::uint8_t const* lds, int lane,
                                    int col0, int k0) {
    if constexpr (arch::has_fragment_loads<Atom>::value) {
      Atom::template load_b<LdsLayoutB>(f, lds, lane, col0, k0);
    } else {
      arch::load_fragment_b_by_chunks<Atom, LdsLayoutB>(f, lds, lane, col0, k0);
    }
  }

  /// E8M0 scale byte of (row, MX block kb); rows or blocks outside the matrix multiply zero-filled
  /// data, so they get 2^0 (127).
  FP8GEMM_DEVICE static std::uint8_t mx_scale_byte(ScaleView<Granularity> const& s, int row,
                                                   int kb) {
    if constexpr (std::is_same_v<typename ScaleView<Granularity>::Element, e8m0>) {
      return (row < s.extent && kb < s.cols) ? s.data[row * s.cols + kb].bits : std::uint8_t{127};
    } else {
      return 127;  // not reached: hardware MX needs e8m0 scales
    }
  }

  /// acc += (partial * s_a(m, kb)) * s_b(n, kb), kb = the scale block of k = chunk_k; partial = 0.
  /// Chunks entirely past K (zero-filled tail) hold zeros and are skipped. NOTE: the scales are
  /// loaded once per atom row / column register ((kAtomsM + kAtomsN) * kCRegs loads), not once per
  /// accumulator; elements outside the matrix get scale 0.
  FP8GEMM_DEVICE static void promote(Arguments const& args, ThreadCoords<Policy> const& tc, int m0,
                                     int n0, int chunk_k, Accumulators& partial,
                                     Accumulators& acc) {
    if (chunk_k >= args.a.cols) return;
    [[maybe_unused]] float sa[Policy::kAtomsM][Atom::kCRegs];
    [[maybe_unused]] float sb[Policy::kAtomsN][Atom::kCRegs];
    if constexpr (kKBlockedScales) {
      FP8GEMM_UNROLL
      for (int i = 0; i < Policy::kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          sa[i][r] = m < args.scale_a.extent ? args.scale_a.block(m, chunk_k, Granularity::kABlockM)
                                             : 0.0f;
        }
      }
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const n = n0 + tc.col(j, r);
          sb[j][r] = n < args.scale_b.extent ? args.scale_b.block(n, chunk_k, Granularity::kBBlockN)
                                             : 0.0f;
        }
      }
    }
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          if constexpr (kKBlockedScales) {
            acc.v[i][j][r] += scale_twice(partial.v[i][j][r], sa[i][r], sb[j][r]);
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
