// SPDX-License-Identifier: MIT
/// BufferLdsPingPongMainloop's load schedule (mainloop layer), all constexpr and host-testable:
/// which loads each phase of a K tile issues, a simulation of that order over a few tiles, and the
/// counted waits it implies (vmcnt of each L phase, the prologue's, the staged writes').
///
/// A K tile is kClusters phase pairs (L_c, M_c). Loads of K tile s (what its L phases issue):
///   L_0: B part kClusters-1 of tile s+1 (Blockwise: then tile s+1's kScaleLoads scale loads);
///   L_c (c >= 1): A share of tile s+2 (a_phase), B part c-1 of tile s+2;
///   MX-32: scale_loads(c) E8M0 byte loads first in each L phase (after its tile loads with
///   kLoadsInMPhase).
/// B part p = the rows cluster p reads (32 of each wave column: LdsLayoutB's slot order), so a part
/// is reloaded as soon as every wave has read it; A (read whole in L_0) is reloaded from L_1 on.
/// Each wave's vmcnt at the end of L_c leaves in flight exactly the loads issued after the last one
/// L_(c+1) and M_(c+1) read (vm_wait).
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// P: a BufferLdsPingPongPolicy (its base: the schedule's users see the policy through it).
template <class P>
struct BufferLdsPingPongSchedule : P {
  static constexpr int kClusters = P::kClusters;
  static constexpr int kClusterAtomsN = P::kClusterAtomsN;
  static constexpr int kAtomsM = P::kAtomsM;
  static constexpr int kLoadsA = P::kLoadsA;
  static constexpr int kLoadsBPart = P::kLoadsBPart;
  static constexpr int kLoadsPerTile = P::kLoadsPerTile;
  static constexpr int kScaleLoads = P::kScaleLoads;
  static constexpr int kReadsBCluster = P::kReadsBCluster;
  static constexpr bool kStaged = P::kStaged;
  static constexpr bool kLoadsInMPhase = P::kLoadsInMPhase;
  static constexpr bool kHardwareMx = P::kHardwareMx;

  // ---- what each L phase issues ---------------------------------------------------------------
  /// Phase (1 .. kClusters-1) in which A load j of tile s+2 is issued during tile s.
  FP8GEMM_HOST_DEVICE static constexpr int a_phase(int j) {
    return 1 + j * (kClusters - 1) / kLoadsA;
  }
  /// Load id: A load j -> j; B part p load q -> kLoadsA + p * kLoadsBPart + q.
  FP8GEMM_HOST_DEVICE static constexpr int b_id(int part, int q) {
    return kLoadsA + part * kLoadsBPart + q;
  }
  /// MX-32: the half of the clusters that cluster c is in; each half has its own copy of A's
  /// bytes (issue_phase_scale_loads).
  FP8GEMM_HOST_DEVICE static constexpr int mx_half(int c) { return c < kClusters / 2 ? 0 : 1; }
  /// MX-32: E8M0 byte loads into registers that L phase c issues (issue_phase_scale_loads): the
  /// bytes of one B cluster; in L_0 and L_(kClusters/2) also one copy of A's.
  FP8GEMM_HOST_DEVICE static constexpr int scale_loads(int c) {
    return kHardwareMx ? kClusterAtomsN + (c == 0 || c == kClusters / 2 ? kAtomsM : 0) : 0;
  }
  /// Vector-memory loads one K tile issues besides its kLoadsPerTile tile loads: MX-32's E8M0
  /// byte loads (scale_loads(c) per phase) and Blockwise's direct-to-LDS scale loads
  /// (kScaleLoads, last in L_0).
  FP8GEMM_HOST_DEVICE static constexpr int scale_loads_per_tile() {
    int n = kScaleLoads;
    for (int c = 0; c < kClusters; ++c) n += scale_loads(c);
    return n;
  }
  /// kStaged: the loads in flight when a staged load is written to LDS, one K tile after it was
  /// issued: every other load of one tile's schedule, its kLoadsPerTile - 1 other tile loads and
  /// its scale_loads_per_tile() scale loads (MX-32 bytes, Blockwise LDS scales; every load is
  /// issued once per tile, in order, and written just before the same load of the next tile
  /// reuses its registers).
  static constexpr int kStagedWriteVmcnt = kLoadsPerTile - 1 + scale_loads_per_tile();
  /// Tile loads of L phase c: c = 0 a B part; c >= 1 the A loads of phase c, then a B part; then
  /// (Blockwise, c = 0) the next tile's kScaleLoads scale loads.
  FP8GEMM_HOST_DEVICE static constexpr int a_loads_in_phase(int c) {
    int n = 0;
    for (int j = 0; j < kLoadsA; ++j) n += c > 0 && a_phase(j) == c;
    return n;
  }
  FP8GEMM_HOST_DEVICE static constexpr int phase_tile_loads(int c) {
    return a_loads_in_phase(c) + kLoadsBPart;
  }
  FP8GEMM_HOST_DEVICE static constexpr int phase_loads(int c) {
    return phase_tile_loads(c) + (c == 0 ? kScaleLoads : 0);
  }
  /// The A load (j) of phase c's n-th load, n < a_loads_in_phase(c).
  FP8GEMM_HOST_DEVICE static constexpr int nth_a_load(int c, int n) {
    for (int j = 0; j < kLoadsA; ++j)
      if (a_phase(j) == c && n-- == 0) return j;
    return -1;
  }
  /// The most loads one L phase issues (kLoadsInMPhase: more than kMfmasPerCluster -
  /// kReadsBCluster share MFMAs, load_slot).
  FP8GEMM_HOST_DEVICE static constexpr int most_phase_loads() {
    int most = 0;
    for (int c = 0; c < kClusters; ++c) most = phase_loads(c) > most ? phase_loads(c) : most;
    return most;
  }

  // ---- kLoadsInMPhase: which MFMA each load follows -------------------------------------------
  /// The MFMA of a cluster of `mfmas` after which load n of `loads` goes:
  ///   kReadsBCluster + n · (mfmas - kReadsBCluster) / loads
  /// past the next cluster's reads; with more loads than MFMAs after the reads, several go after
  /// one MFMA (in load order), and with no MFMA after them, all go after the last.
  FP8GEMM_HOST_DEVICE static constexpr int load_slot(int n, int mfmas, int loads) {
    int const slot = kReadsBCluster + n * (mfmas - kReadsBCluster) / loads;
    return slot < mfmas ? slot : mfmas - 1;
  }
  /// The first load issued after MFMA k (-1: none) and how many follow it there.
  FP8GEMM_HOST_DEVICE static constexpr int load_after_mfma(int k, int mfmas, int loads) {
    for (int n = 0; n < loads; ++n)
      if (load_slot(n, mfmas, loads) == k) return n;
    return -1;
  }
  FP8GEMM_HOST_DEVICE static constexpr int loads_after_mfma(int k, int mfmas, int loads) {
    int count = 0;
    for (int n = 0; n < loads; ++n) count += load_slot(n, mfmas, loads) == k;
    return count;
  }

  // ---- the simulation and the waits it implies ------------------------------------------------
  struct Schedule {
    static constexpr int kSteps = 8;  // simulated tiles; waits are read at a steady one
    static constexpr int kTiles = kSteps + 2;
    int pos[kTiles][kLoadsPerTile] = {};     // issue index of (tile, id); -1: not issued
    int scale_pos[kTiles];                   // Blockwise: the last A scale load of the tile
    int issued_end[kSteps][kClusters] = {};  // loads issued by the end of phase (step, c)
  };
  FP8GEMM_HOST_DEVICE static constexpr Schedule simulate() {
    Schedule sch{};
    for (int t = 0; t < Schedule::kTiles; ++t) {
      for (int id = 0; id < kLoadsPerTile; ++id) sch.pos[t][id] = -1;
      sch.scale_pos[t] = -1;
    }
    int n = 0;
    for (int s = 0; s < Schedule::kSteps; ++s) {
      for (int c = 0; c < kClusters; ++c) {
        // MX-32 bytes: first in the phase; kLoadsInMPhase: after its tile loads, which M_(c-1)
        // issued. Never read from LDS.
        if (!kLoadsInMPhase) n += scale_loads(c);
        if (c == 0) {
          for (int q = 0; q < kLoadsBPart; ++q) sch.pos[s + 1][b_id(kClusters - 1, q)] = n++;
          if (kScaleLoads > 0) {  // last in L_0: tile s+1's scales
            n += kScaleLoads;
            sch.scale_pos[s + 1] = n - 1;
          }
        } else {
          for (int j = 0; j < kLoadsA; ++j)
            if (a_phase(j) == c) sch.pos[s + 2][j] = n++;
          for (int q = 0; q < kLoadsBPart; ++q) sch.pos[s + 2][b_id(c - 1, q)] = n++;
        }
        if (kLoadsInMPhase) n += scale_loads(c);
        sch.issued_end[s][c] = n;
      }
    }
    return sch;
  }
  /// The latest issue index among the loads phase c of tile s reads from LDS that a vmcnt wait
  /// covers (kStaged: the Blockwise scales only; the tile loads land by their ds_writes, after
  /// kStagedWriteVmcnt). -1: none.
  FP8GEMM_HOST_DEVICE static constexpr int last_needed(Schedule const& sch, int s, int c) {
    int last = -1;
    auto need = [&](int tile, int id) {
      if (!kStaged) last = sch.pos[tile][id] > last ? sch.pos[tile][id] : last;
    };
    if (c == 0) {
      for (int j = 0; j < kLoadsA; ++j) need(s, j);              // A of tile s
      last = sch.scale_pos[s] > last ? sch.scale_pos[s] : last;  // and its A scales
    }
    int const part = c + 1 < kClusters ? c + 1 : 0;
    int const tile = c + 1 < kClusters ? s : s + 1;  // the last phase reads the next tile's part 0
    for (int q = 0; q < kLoadsBPart; ++q) need(tile, b_id(part, q));
    return last;
  }
  /// vmcnt at the end of L_c: the loads issued after the last one the next L phase reads.
  FP8GEMM_HOST_DEVICE static constexpr int vm_wait(int c) {
    Schedule const sch = simulate();
    constexpr int kSteady = 4;
    int const next_s = c + 1 < kClusters ? kSteady : kSteady + 1;
    int const next_c = (c + 1) % kClusters;
    return sch.issued_end[kSteady][c] - 1 - last_needed(sch, next_s, next_c);
  }
  /// Whether the wait at the end of L_c counts vector-memory loads at all (kStaged: only where
  /// the next phase reads the Blockwise scales, L_(kClusters-1)).
  FP8GEMM_HOST_DEVICE static constexpr bool counts_vm(int c) {
    Schedule const sch = simulate();
    return last_needed(sch, c + 1 < kClusters ? 4 : 5, (c + 1) % kClusters) >= 0;
  }
  /// vmcnt at the end of the prologue (steps -2 and -1 issued): all of tile 0 landed.
  FP8GEMM_HOST_DEVICE static constexpr int prologue_vm_wait() {
    Schedule const sch = simulate();
    int last = -1;
    for (int id = 0; id < kLoadsPerTile && !kStaged; ++id)
      last = sch.pos[2][id] > last ? sch.pos[2][id] : last;
    last = sch.scale_pos[2] > last ? sch.scale_pos[2] : last;
    // tile 2 of the simulation = tile 0; kLoadsInMPhase: L_0 of tile 0 is issued before it too
    return sch.issued_end[1][kClusters - 1] - 1 - last + (kLoadsInMPhase ? phase_loads(0) : 0);
  }
  template <int c>
  static constexpr int kVmWait = vm_wait(c);
  static_assert(vm_wait(0) >= 0 && vm_wait(kClusters - 1) >= 0,
                "load schedule: a phase reads LDS before its loads are issued");

  /// LDS bytes the loads of a range of `full` K tiles write, per operand: tiles 0 .. full + 1 of
  /// A; of B tiles 0 .. full and the parts 0 .. kClusters-2 of tile full + 1. The tiles past the
  /// end reload the last one (L2-resident): they keep the schedule, and so the counted waits, the
  /// same in the last steps as in the steady state.
  FP8GEMM_HOST_DEVICE static constexpr std::int64_t loaded_bytes_a(int full) {
    // kStaged: the loads of tiles full + 1 (and part of full + 2) stay in registers
    return std::int64_t(kStaged ? full + 1 : full + 2) * P::LdsLayoutA::kBytes;
  }
  FP8GEMM_HOST_DEVICE static constexpr std::int64_t loaded_bytes_b(int full) {
    if constexpr (kStaged) return std::int64_t(full + 1) * P::LdsLayoutB::kBytes;
    return std::int64_t(full + 1) * P::LdsLayoutB::kBytes +
           std::int64_t(kLoadsInMPhase ? kClusters : kClusters - 1) * P::LdsLayoutB::kSlotsPerPart *
               P::kSlotBytes;
  }
};

}  // namespace fp8gemm
