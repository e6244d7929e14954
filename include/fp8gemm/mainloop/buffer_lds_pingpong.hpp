// SPDX-License-Identifier: MIT
/// The CDNA K loop (mainloop layer): A and B go global -> LDS by buffer loads (TileLoadT): direct
/// to LDS (gfx950: buffer_load_dwordx4 ... lds, no registers; gfx942's variant: buffer_load_dword
/// ... lds, 4 bytes per lane) or through registers (gfx942's default: buffer_load_dwordx4, then
/// ds_write_b128 a K tile later; docs/gfx942_tile_loads.md), into XOR-swizzled LDS tiles, whose
/// buffer ranges zero-fill rows past M / N; with 8 waves the two waves of each SIMD ping-pong (one
/// multiplies under s_setprio 1 while the other loads); the next cluster's fragments are read from
/// LDS between the current cluster's MFMAs; every wait is counted from the load schedule. Same
/// contract as LdsMultistageMainloop (docs/architecture.md, "Extension point 1"). GemmConfig picks
/// it where BufferLdsPingPongSupports holds (mk_nk_mn; gfx950's 16x16x128 atoms with BlockK 128,
/// gfx942's 16x16x32 with BlockK 64; 4 or 8 waves); elsewhere (sm90, mk_kn_mn, the 32x32 atoms)
/// LdsMultistageMainloop runs.
///
/// In four headers, ck_tile's split: the policy (buffer_lds_pingpong_policy.hpp: support
/// predicate, tile shape, LDS layouts, addressing), the schedule (buffer_lds_pingpong_schedule.hpp:
/// the load order and its counted waits, constexpr), the loads and LDS reads
/// (buffer_lds_pingpong_loads.hpp), and here the pipeline: the K loop, the MFMA clusters with
/// their promotion, the tail tile.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_loads.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_policy.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_schedule.hpp"
#include "fp8gemm/mainloop/common.hpp"
#include "fp8gemm/mainloop/scale_promotion.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// A K tile is kClusters phase pairs; in pair c every wave
///   L_c: issues its share of the loads of phase c (the schedule; with one wave per SIMD they go
///        between the MFMAs of M_(c-1) instead: kLoadsInMPhase) (c = 0: and reads its A
///        fragments), waits (counted: vmcnt from the schedule, lgkmcnt 0), barrier;
///   M_c: under s_setprio 1, multiplies cluster c = all its A atoms x B atoms 2c, 2c + 1, with the
///        next cluster's B fragments read from LDS between those MFMAs; barrier.
/// With 8 waves, waves 4..7 (the second wave of each SIMD) start one barrier late, so on every
/// SIMD one wave is in an M phase while the other is in an L phase (ping-pong); with 4 waves all
/// run in step. The loads of each phase and the waits they imply: buffer_lds_pingpong_schedule.hpp
/// (Cdna4Default's vmcnt at the end of L_0 .. L_3: 9, 11, 10, 9). Tiles past the last full K tile
/// reload that one (never read), so the loop has no branch and its last steps keep the counts; a
/// partial last K tile (K % kBlockK != 0) runs after the loop through the same loads, chunks past
/// K outside the range and the chunk K falls in written byte by byte. Through registers (kStaged),
/// each load is written to LDS (ds_write_b128, behind kStagedWriteVmcnt) just before the same load
/// of the next K tile is issued into its registers: tile s+1's bytes go into the stage tile s does
/// not read; the L phases then wait for lgkmcnt 0.
///
/// MX-32 (E8M0 scales in the MFMA): each L phase first issues scale_loads(c) byte loads into
/// registers (buffer_load_ubyte), ahead of the MFMAs that use them: B cluster c-1's bytes of tile
/// s+1 (L_0: cluster kClusters-1's of tile s), one tile ahead; A's bytes are held twice, one copy
/// per half of the clusters, each reloaded as soon as its half has multiplied, half a tile ahead:
/// L_0 the second half's of tile s, L_(kClusters/2) the first half's of tile s+1. So no byte is
/// copied between registers and none is widened (the MFMA reads byte 0 of the load's 32-bit
/// register). They count in vmcnt, so the schedule counts them (vm_wait, and kStagedWriteVmcnt
/// through registers); the compiler waits for their values. With kLoadsInMPhase they stay in the
/// L phase, after the phase's tile loads (issued between M_(c-1)'s MFMAs).
///
/// Blockwise (K-blocked scales, promoted every K tile): each output atom's MFMAs of the tile start
/// from a zero accumulator (gfx950: the atom's only MFMA; gfx942: its kMmasPerAtom, back to back),
/// so their result is the tile's partial sum, promoted kPromoteLag atoms later, with no second
/// accumulator set. The tile's scales reach LDS by direct-to-LDS dword loads (one row of A, one
/// column of B per lane, one B load when a scale block spans the wave tile: kScaleLoads, last in
/// L_0 of the tile before, counted by the schedule; Cdna4KBlocked: 17, 20, 18, 11; through
/// registers, in kStagedWriteVmcnt and one vmcnt wait before L_0, counts_vm) and are read in L_0
/// of their tile (one ds_read_b128 per A atom, one for B when a scale block spans the wave tile).
/// With one B scale per wave tile (kFoldScales) the promotion is FoldOrTwice's
///   d = fma(partial, s_a · s_b, d)   when every product s_a · s_b of the wave's rows is a normal
///                                     FP32 number (the wave's vote on the tile),
///   d = fma(partial · s_a, s_b, d)   otherwise (the whole tile),
/// with s_a · s_b formed once per tile and row (fold_products). The vote on tile s + 1 reads one
/// A scale per lane (the rows its scale loads brought) and the B scale at the start of M_last of
/// tile s and is taken between tiles: the folded loop runs while it holds; the rest of the range
/// runs in a second loop that applies it tile by tile without a branch (Promote::kSelected).
///
/// kWaitSlack (tests only; 0 otherwise): loads every counted vmcnt wait leaves in flight beyond the
/// schedule's count. tests/emulator/buffer_lds_test.cpp sets 1 and sees a wrong GEMM.
template <class PolicyT, class GranularityT, LayoutB kLayoutB, int kPromoteKV, int kWaitSlack = 0,
          class TileLoadT = arch::DefaultTileLoad<typename PolicyT::Arch>>
struct BufferLdsPingPongMainloop
    : BufferLdsPingPongLoads<BufferLdsPingPongSchedule<
          BufferLdsPingPongPolicy<PolicyT, GranularityT, kLayoutB, kPromoteKV, TileLoadT>>> {
  using Loads = BufferLdsPingPongLoads<BufferLdsPingPongSchedule<
      BufferLdsPingPongPolicy<PolicyT, GranularityT, kLayoutB, kPromoteKV, TileLoadT>>>;
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  using Accumulators = fp8gemm::Accumulators<Policy>;
  using Coords = ThreadCoords<Policy>;
  using typename Loads::Arguments;
  using typename Loads::FragTileA;
  using typename Loads::FragTileB;
  using typename Loads::SharedStorage;
  static_assert(
      BufferLdsPingPongSupports<Policy, Granularity, kLayoutB, kPromoteKV, TileLoadT>::value,
      "BufferLdsPingPongMainloop: CDNA, mk_nk_mn, 16x16x128 atoms with BlockK 128 "
      "(gfx950) or 16x16x32 atoms with BlockK 64 (gfx942), 4 or 8 waves, an even number "
      "of B atom pairs per wave, promotion once per K tile (K-blocked scales: whole K tiles per "
      "scale block; no hardware MX-32 with PromoteEvery), wave tiles of 32 rows or more on "
      "gfx950 (Blockwise: multiples of 64) (GemmConfig checks this first)");
  static constexpr int kMinBlocksPerSm = 1;  // occupancy hint: NVIDIA only

  // What the pipeline takes from the policy, the schedule and the loads.
  using Loads::b_imm;
  using Loads::counts_vm;
  using Loads::issue_step_loads;
  using Loads::kAtomsM;
  using Loads::kClusterAtomsN;
  using Loads::kClusters;
  using Loads::kFoldScales;
  using Loads::kHardwareMx;
  using Loads::kKBlockedScales;
  using Loads::kLoadsInMPhase;
  using Loads::kMfmasPerCluster;
  using Loads::kMmasPerAtom;
  using Loads::kPartialSets;
  using Loads::kPingPong;
  using Loads::kPromoteLag;
  using Loads::kReadsBCluster;
  using Loads::kReadsPerFragment;
  using Loads::kScaleLoads;
  using Loads::kScaleLoadsA;
  using Loads::kStaged;
  using Loads::kThreads;
  using Loads::kUsePartial;
  using Loads::kWaves;
  using Loads::kWaveSize;
  using Loads::load_after_mfma;
  using Loads::load_block_scales;
  using Loads::load_scales_a;
  using Loads::load_scales_b;
  using Loads::load_tail_tile;
  using Loads::loads_after_mfma;
  using Loads::mx_half;
  using Loads::phase_loads;
  using Loads::prologue_vm_wait;
  using Loads::read_a;
  using Loads::read_address;
  using Loads::read_base;
  using Loads::read_block_scales;
  using Loads::read_vote_scales;
  using typename Loads::BlockScales;
  using typename Loads::Fragments;
  using typename Loads::Operands;
  using typename Loads::ReadAddress;
  using typename Loads::ReadBase;
  template <int c>
  static constexpr int kVmWait = Loads::template kVmWait<c>;
  using Rule = FoldOrTwice<64>;  // the fold-or-twice rule and the wave's vote

  /// acc += A[m0:, k_tiles] * B[k_tiles, n0:] for K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE void operator()(Arguments const& args, int m0, int n0, int k_tile_begin,
                                 int k_tile_end, SharedStorage& lds, Accumulators& acc) const {
    Coords const tc = Coords::current();
    int const wave = arch::wave_index_uniform(kWaveSize);
    int const num_tiles = k_tile_end - k_tile_begin;
    if (num_tiles <= 0) return;
    int const k_total = args.a.cols;
    // K tiles entirely inside K run the pipelined loop; a partial last one runs after it.
    int full = k_total / Policy::kBlockK - k_tile_begin;
    full = full < 0 ? 0 : (full > num_tiles ? num_tiles : full);
    run(args, m0, n0, k_tile_begin, num_tiles, full, lds, tc, wave, acc);
  }

 private:
  /// How a K tile's partial sums go into d (promote_atom):
  ///   kTwice:    d += (partial · s_a) · s_b (scale_twice);
  ///   kFolded:   d = fma(partial, s_a · s_b, d);
  ///   kSelected: d = fma(partial · m1, m2, d) with (m1, m2) = (1, s_a · s_b) or (s_a, s_b) for
  ///              the whole tile (select_scales): kFolded or the fallback, by a wave's vote,
  ///              without a branch.
  enum class Promote { kTwice, kFolded, kSelected };
  /// Outside the folded K loop: the tail tile and, after a failed vote, the rest of the range.
  static constexpr Promote kPromoteChosen = kFoldScales ? Promote::kSelected : Promote::kTwice;

  /// The K loop. Promoting (kUsePartial), each output atom's MFMAs of a K tile start from a zero
  /// accumulator (one on gfx950's 16x16x128 with BlockK 128, kMmasPerAtom on gfx942), so their
  /// result is the tile's partial sum, promoted into d kPromoteLag atoms later (mfma_step; the tail
  /// at once, mma_atom): no second accumulator set. The order below is the order of the ISA:
  /// prologue, then per K tile L_0 (load_phase), M_0, L_1, M_1, .. (multiply_tile), then the tail.
  FP8GEMM_DEVICE static void run(Arguments const& args, int m0, int n0, int k_tile_begin,
                                 int num_tiles, int full, SharedStorage& lds, Coords const& tc,
                                 int wave, Accumulators& d) {
    if (full > 0) {
      Operands const ops = Operands::make(args, m0, n0, k_tile_begin, full, wave, tc.lane);
      ReadBase const rb = read_base(tc.lane, tc.wave_m, tc.wave_n);
      Fragments f;
      // Prologue: the loads of tiles -2 and -1's phases (tile 0 and most of tile 1), all of
      // tile 0 landed, B part 0 of tile 0 read.
      for (int s = -2; s < 0; ++s) issue_step_loads(ops, lds, s, f);
      if constexpr (kLoadsInMPhase)
        Loads::template issue_phase_loads<0, /*kPrologue=*/true>(ops, lds, 0, f);  // M_(-1)'s share
      if constexpr (kStaged) {
        arch::wait_lgkmcnt<0>();  // waits for: this thread's writes of tile 0
        if constexpr (kScaleLoads > 0)
          arch::wait_vmcnt<prologue_vm_wait() + kWaitSlack>();  // and its Blockwise scales
      } else {
        arch::wait_vmcnt<prologue_vm_wait() + kWaitSlack>();
      }
      arch::barrier_without_fence();  // waits for: tile 0 in LDS from every wave
      if constexpr (kFoldScales) read_vote_scales(f.scales, lds, ops, tc, 0);  // tile 0's vote
      Loads::template read_b_cluster<0>(f.b[0], read_address(lds, rb, 0));
      if constexpr (kPingPong) {
        // The second wave of each SIMD starts one barrier late (see the struct comment).
        if (wave >= kWaves / 2) arch::barrier_without_fence();  // waits for: the other half
      }
      if constexpr (kFoldScales) {
        // The folded K loop runs while the wave's vote of the next tile holds (every product
        // s_a · s_b of its rows normal, decided between tiles); from the first tile where it does
        // not, the rest of the range runs in a second loop that applies the same vote tile by
        // tile without a branch (kSelected: two operations per element).
        // A branch between the two promotions inside one loop would put the fallback's
        // longer body on every trip; a loop left in the middle of a tile made the register
        // allocator copy the accumulators between the register files on every trip.
        // waits for: the vote's scale reads (the next cluster's kReadsBCluster B reads, issued
        // after them, may stay in flight)
        arch::wait_lgkmcnt<kReadsBCluster>();
        int s = 0;
        // fold: the next tile exists and the wave's vote on it holds (one branch per trip)
        bool fold = vote(f.scales, s < full);
        while (fold) {
          load_phase<0>(ops, lds, s, tc, rb, f);  // L_0
          fold_products(f.scales);
          multiply_tile<Promote::kFolded>(ops, lds, s, tc, rb, f, d);  // M_0, L_1, .., M_last
          arch::wait_lgkmcnt<kReadsBCluster>();  // waits for: the next tile's vote reads (M_last)
          fold = vote(f.scales, ++s < full);
        }
        for (; s < full; ++s) {
          load_phase<0>(ops, lds, s, tc, rb, f);  // L_0
          fold_products(f.scales);
          select_scales(f.scales, fold);
          multiply_tile<Promote::kSelected>(ops, lds, s, tc, rb, f, d);  // M_0, L_1, .., M_last
          arch::wait_lgkmcnt<kReadsBCluster>();  // waits for: the next tile's vote reads (M_last)
          fold = vote(f.scales);
        }
      } else {
        for (int s = 0; s < full; ++s) {
          load_phase<0>(ops, lds, s, tc, rb, f);                      // L_0
          multiply_tile<Promote::kTwice>(ops, lds, s, tc, rb, f, d);  // M_0, L_1, .., M_last
        }
      }
      // The last cluster's reads of the next tile (never multiplied) are still in flight,
      // and the compiler does not know it (lds_read16_counted): their registers must not be
      // reused before they land.
      arch::wait_lgkmcnt<0>();  // waits for: this wave's LDS reads
      if constexpr (kPingPong) {
        if (wave < kWaves / 2) arch::barrier_without_fence();  // waits for: the other half
      }
      arch::wait_vmcnt<0>();  // the loads of tiles past the end (reloads) have landed
      arch::sync_block();     // waits for: every wave done with LDS before the tail reuses it
    }
    if (full < num_tiles) tail_tile(args, m0, n0, k_tile_begin, full, lds, tc, wave, d);
  }

  /// L_c: loads (c = 0: and the A fragments and the tile's Blockwise scales), counted waits.
  template <int c>
  FP8GEMM_DEVICE static void load_phase(Operands const& ops, SharedStorage& lds, int s,
                                        Coords const& tc, ReadBase const& rb, Fragments& f) {
    // MX-32: the E8M0 bytes first (scale_loads(c)); then the phase's tile loads, unless they go
    // between the MFMAs of M_(c-1) (kLoadsInMPhase)
    Loads::template issue_phase_scale_loads<c>(f, ops, s);
    if constexpr (!kLoadsInMPhase) Loads::template issue_phase_loads<c>(ops, lds, s, f);
    if constexpr (c == 0) {
      read_a(f.a, read_address(lds, rb, s & 1));
      read_block_scales(f.scales, lds, ops, tc, s);  // Blockwise: this tile's
    }
    // waits for: this cluster's B fragments (read during M_(c-1)) and A (lgkmcnt 0); this wave's
    // loads of what L_(c+1) and M_(c+1) read (vmcnt: the schedule's count; through registers the
    // ds_writes of M_(c-1), lgkmcnt 0, and the compiler waits for their registers)
    // (kStaged, Blockwise: before L_0 the vmcnt of the next tile's scales, counts_vm)
    if constexpr (counts_vm(c)) {
      arch::wait_vmcnt_lgkmcnt<kVmWait<c> + kWaitSlack, 0>();
    } else {
      arch::wait_lgkmcnt<0>();
    }
    arch::barrier_without_fence();  // waits for: every wave's loads and reads above
  }
  /// M_c: one cluster of MFMAs, the next cluster's B fragments read between them. kMode: how the
  /// partial sums are promoted.
  template <int c, Promote kMode>
  FP8GEMM_DEVICE static void multiply_phase(Operands const& ops, SharedStorage& lds, int s,
                                            Coords const& tc, ReadBase const& rb, Fragments& f,
                                            Accumulators& d) {
    // kLoadsInMPhase (one wave per SIMD, loads between the MFMAs): no L phase of another wave to
    // take turns with, so neither priority nor a closing barrier (the loads need only L_c's).
    if constexpr (!kLoadsInMPhase) arch::set_priority<1>();
    // The last cluster reads the next tile's first cluster, from the other stage; first the next
    // tile's vote scales (Blockwise, folded: in LDS since L_(kClusters-1)'s wait and barrier).
    if constexpr (kFoldScales && c + 1 == kClusters)
      read_vote_scales(f.scales, lds, ops, tc, s + 1);
    ReadAddress const next = read_address(lds, rb, (c + 1 < kClusters ? s : s + 1) & 1);
    mfma_steps<c, kMode>(std::make_integer_sequence<int, kMfmasPerCluster>{}, ops, lds, s, f, next,
                         d);
    if constexpr (kLoadsInMPhase) {
      arch::schedule_fence();  // the cluster's MFMAs stay in M_c
    } else {
      arch::set_priority<0>();
      arch::barrier_without_fence();  // waits for: the other wave of the SIMD's L phase
    }
  }
  /// M_0, L_1, M_1, ..., L_(kClusters-1), M_(kClusters-1) of K tile s (L_0 ran before).
  template <Promote kMode>
  FP8GEMM_DEVICE static void multiply_tile(Operands const& ops, SharedStorage& lds, int s,
                                           Coords const& tc, ReadBase const& rb, Fragments& f,
                                           Accumulators& d) {
    phase_pairs<kMode>(std::make_integer_sequence<int, kClusters>{}, ops, lds, s, tc, rb, f, d);
  }
  template <Promote kMode, int... c>
  FP8GEMM_DEVICE static void phase_pairs(std::integer_sequence<int, c...>, Operands const& ops,
                                         SharedStorage& lds, int s, Coords const& tc,
                                         ReadBase const& rb, Fragments& f, Accumulators& d) {
    (phase_pair<c, kMode>(ops, lds, s, tc, rb, f, d), ...);
  }
  /// L_c (c > 0; L_0 ran before the tile's M phases), then M_c.
  template <int c, Promote kMode>
  FP8GEMM_DEVICE static void phase_pair(Operands const& ops, SharedStorage& lds, int s,
                                        Coords const& tc, ReadBase const& rb, Fragments& f,
                                        Accumulators& d) {
    if constexpr (c > 0) load_phase<c>(ops, lds, s, tc, rb, f);
    multiply_phase<c, kMode>(ops, lds, s, tc, rb, f, d);
  }

  /// Part m of a lane's tile bytes: the fragment MFMA m of the atom takes (all of it when
  /// kMmasPerAtom == 1).
  template <int m, class Frag, class Tile>
  FP8GEMM_DEVICE static Frag atom_part(Tile const& t) {
    constexpr int kWords = sizeof(Frag) / 4;
    Frag f;
    FP8GEMM_UNROLL
    for (int w = 0; w < kWords; ++w) f.w[w] = t.w[m * kWords + w];
    return f;
  }
  template <int m>
  FP8GEMM_DEVICE static void mma_part(float (&d)[Atom::kCRegs], FragTileA const& a,
                                      FragTileB const& b) {
    Atom::mma(d, atom_part<m, typename Atom::FragA>(a), atom_part<m, typename Atom::FragB>(b));
  }
  template <int m = 0>
  FP8GEMM_DEVICE static void mma_parts(float (&d)[Atom::kCRegs], FragTileA const& a,
                                       FragTileB const& b) {
    mma_part<m>(d, a, b);
    if constexpr (m + 1 < kMmasPerAtom) mma_parts<m + 1>(d, a, b);
  }

  /// MFMA k of cluster c (MFMA k: part m = k / (2 kAtomsM) of the atoms, B atom (k / kAtomsM) % 2,
  /// A atom k % kAtomsM: an accumulator's MFMAs are 2 kAtomsM apart; promoting, atom-major from a
  /// zero accumulator, see below); after MFMA k < kReadsBCluster, the k-th 16-byte read of the next
  /// cluster's B fragments (atom k / kReadsPerFragment, chunk k % kReadsPerFragment), so the reads
  /// issue while the matrix pipe is busy; kLoadsInMPhase: then the next L phase's loads due here.
  template <int c, Promote kMode, int... k>
  FP8GEMM_DEVICE static void mfma_steps(std::integer_sequence<int, k...>, Operands const& ops,
                                        SharedStorage& lds, int s, Fragments& f,
                                        ReadAddress const& next, Accumulators& d) {
    (mfma_step<c, kMode, k>(ops, lds, s, f, next, d), ...);
  }
  template <int c, Promote kMode, int k>
  FP8GEMM_DEVICE static void mfma_step(Operands const& ops, SharedStorage& lds, int s, Fragments& f,
                                       ReadAddress const& next, Accumulators& d) {
    constexpr int kPerPart = kClusterAtomsN * kAtomsM;
    constexpr int kMfmas = kMfmasPerCluster;
    if constexpr (kUsePartial) {
      // Atom-major: atom a = (q, i) takes MFMAs kMmasPerAtom a .. + kMmasPerAtom - 1 (part m), the
      // first from a zero accumulator.
      // Promoted kPromoteLag atoms late (after the first MFMA of atom g + kPromoteLag of the
      // tile, g counted over its clusters: the last atoms of a cluster in the first steps of the
      // next), so the matrix pipe has the next MFMAs while the vector ALU scales an earlier result
      // (read at once, it waits for the MFMA's whole latency: s_nop); the tile's last kPromoteLag
      // atoms after its last MFMA.
      constexpr int a = k / kMmasPerAtom, m = k % kMmasPerAtom;
      constexpr int q = a / kAtomsM, i = a % kAtomsM;
      constexpr int g = c * kClusterAtomsN * kAtomsM + a;  // atom of the tile
      if constexpr (m == 0) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) f.partial[g % kPartialSets][r] = 0.0f;
      }
      mma_part<m>(f.partial[g % kPartialSets], f.a[i], f.b[c % 2][q]);
      if constexpr (m == 0 && g >= kPromoteLag) promote_lagged<g - kPromoteLag, kMode>(f, d);
      if constexpr (k + 1 == kMfmas && c + 1 == kClusters)
        promote_tile_end<g + 1 - kPromoteLag, kMode>(std::make_integer_sequence<int, kPromoteLag>{},
                                                     f, d);
    } else {
      // MFMA k: part m = k / kPerPart of the atoms, B atom (k % kPerPart) / kAtomsM, A atom
      // k % kAtomsM: an accumulator's MFMAs are kPerPart apart.
      constexpr int m = k / kPerPart, q = (k % kPerPart) / kAtomsM, i = k % kAtomsM;
      constexpr int j = c * kClusterAtomsN + q;
      if constexpr (kHardwareMx) {
        Atom::mma_scaled_byte0(d.v[i][j], f.a[i], f.b[c % 2][q], f.sa[mx_half(c)][i], f.sb[j]);
      } else {
        mma_part<m>(d.v[i][j], f.a[i], f.b[c % 2][q]);
      }
    }
    if constexpr (k < kReadsBCluster) {
      constexpr int kNext = (c + 1) % kClusters, kAtom = k / kReadsPerFragment;
      constexpr int kChunk = k % kReadsPerFragment;
      arch::Vec<16> v;
      arch::lds_read16_counted<b_imm(0, kNext, kAtom)>(v, next.b[kChunk]);
      FP8GEMM_UNROLL
      for (int w = 0; w < 4; ++w) f.b[(c + 1) % 2][kAtom].w[4 * kChunk + w] = v.w[w];
    }
    if constexpr (kLoadsInMPhase) {  // L_(c+1)'s loads, one after every few MFMAs
      constexpr int kNextPhase = (c + 1) % kClusters;
      constexpr int n = load_after_mfma(k, kMfmas, phase_loads(kNextPhase));
      constexpr int count = loads_after_mfma(k, kMfmas, phase_loads(kNextPhase));
      int const s_next = c + 1 < kClusters ? s : s + 1;
      if constexpr (n >= 0)
        Loads::template issue_phase_loads_in_m<kNextPhase, n, n + count>(ops, lds, s_next, f);
    }
    // Promoting, each MFMA's step stays where the schedule puts it (the scheduler would pull a
    // promotion up behind the next MFMA, where it waits for the MFMA it reads: s_nop).
    if constexpr (kUsePartial) arch::schedule_fence();
  }

  /// Promotes atom g of the tile (cluster g / (kClusterAtomsN kAtomsM); in it atom-major: B atom
  /// (g % (kClusterAtomsN kAtomsM)) / kAtomsM of the cluster, A atom g % kAtomsM) from its
  /// partial-sum set.
  /// (Atoms outside the tile, g < 0: none; promote_tile_end.)
  template <int g, Promote kMode>
  FP8GEMM_DEVICE static void promote_lagged(Fragments& f, Accumulators& d) {
    constexpr int kPerCluster = kClusterAtomsN * kAtomsM;
    constexpr int c = g / kPerCluster, a = g % kPerCluster;
    if constexpr (g >= 0)
      promote_atom<a % kAtomsM, c * kClusterAtomsN + a / kAtomsM, kMode>(
          f.partial[g % kPartialSets], f.scales, d);
  }
  /// The tile's last kPromoteLag atoms, g .. g + kPromoteLag - 1 (those before were promoted
  /// already; none before atom 0).
  template <int g, Promote kMode, int... x>
  FP8GEMM_DEVICE static void promote_tile_end(std::integer_sequence<int, x...>, Fragments& f,
                                              Accumulators& d) {
    (promote_lagged<g + x, kMode>(f, d), ...);
  }

  /// d[i][2c + q] += A atom i * B atom 2c + q of one K tile (MX-32: with its E8M0 bytes), atom by
  /// atom (the tail: kPromoteChosen).
  template <int c, int... k>
  FP8GEMM_DEVICE static void mma_cluster(std::integer_sequence<int, k...>, Fragments const& f,
                                         Accumulators& d) {
    (mma_atom<k % kAtomsM, c * kClusterAtomsN + k / kAtomsM>(f.a[k % kAtomsM],
                                                             f.b[c % 2][k / kAtomsM], f, d),
     ...);
  }

  /// Output atom (i, j) of one K tile (B atom j in the cluster's fragment fb):
  ///   MX-32:     d += (A_i · 2^sa) (B_j · 2^sb) in the MFMA (E8M0 bytes of the tile);
  ///   promoting: A_i B_j by the atom's MFMAs of the tile from a zero accumulator, into d by
  ///              promote_atom<kPromoteChosen> (scaled twice, or by the tile's vote; without
  ///              K-blocked scales d += A_i B_j);
  ///   otherwise: d += A_i B_j.
  template <int i, int j>
  FP8GEMM_DEVICE static void mma_atom(FragTileA const& fa, FragTileB const& fb, Fragments const& f,
                                      Accumulators& d) {
    if constexpr (kHardwareMx) {
      constexpr int c = j / kClusterAtomsN;
      Atom::mma_scaled_byte0(d.v[i][j], fa, fb, f.sa[mx_half(c)][i], f.sb[j]);
    } else if constexpr (kUsePartial) {
      float partial[Atom::kCRegs];
      mma_partial(fa, fb, partial);
      promote_atom<i, j, kPromoteChosen>(partial, f.scales, d);
    } else {
      mma_parts(d.v[i][j], fa, fb);
    }
  }
  /// partial = A_i B_j of one K tile: its kMmasPerAtom MFMAs from a zero accumulator.
  FP8GEMM_DEVICE static void mma_partial(FragTileA const& fa, FragTileB const& fb,
                                         float (&partial)[Atom::kCRegs]) {
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; ++r) partial[r] = 0.0f;
    mma_parts(partial, fa, fb);
  }
  /// Output atom (i, j)'s partial sum of one K tile into d[i][j], per kMode (Promote; without
  /// K-blocked scales d[i][j] += partial):
  ///   kTwice:    d += (partial · s_a) · s_b                  (scale_twice)
  ///   kFolded:   d = fma(partial, s_a · s_b, d)              (FoldOrTwice::folded)
  ///   kSelected: d = fma(partial · m1, m2, d)                (FoldOrTwice::fallback of (m1, m2);
  ///                                                           m1 = 1 exactly: kFolded's result)
  template <int i, int j, Promote kMode>
  FP8GEMM_DEVICE static void promote_atom(float const (&partial)[Atom::kCRegs],
                                          BlockScales const& sc, Accumulators& d) {
    // In register pairs (v_pk_mul_f32, v_pk_fma_f32), the same per element.
    using Pair = arch::FloatPair;
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; r += 2) {
      Pair const p = {partial[r], partial[r + 1]};
      Pair acc = {d.v[i][j][r], d.v[i][j][r + 1]};
      if constexpr (!kKBlockedScales) {
        acc += p;
      } else if constexpr (kMode == Promote::kTwice) {
        Pair const sa = {sc.a[i][r], sc.a[i][r + 1]}, sb = {sc.b[j][r], sc.b[j][r + 1]};
        acc += (p * sa) * sb;  // scale_twice per element
      } else if constexpr (kMode == Promote::kFolded) {
        Pair const ab = {sc.ab[i][r], sc.ab[i][r + 1]};
        acc = Rule::folded(p, ab, acc);
      } else {
        Pair const m1 = {sc.a[i][r], sc.a[i][r + 1]}, m2 = {sc.ab[i][r], sc.ab[i][r + 1]};
        acc = Rule::fallback(p, m1, m2, acc);
      }
      d.v[i][j][r] = acc[0], d.v[i][j][r + 1] = acc[1];
    }
  }

  /// Blockwise, one B scale per wave tile (kFoldScales): sc.ab = s_a · s_b per A row register,
  /// once per K tile (s_b: the wave tile's one scale, read with the vote).
  FP8GEMM_DEVICE static void fold_products(BlockScales& sc) {
    if constexpr (kFoldScales) {
      float const sb = sc.vote_b;
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) sc.ab[i][r] = sc.a[i][r] * sb;
      }
    }
  }
  /// The wave's vote on a K tile (its scales in sc.vote_a, sc.vote_b): FoldOrTwice's, true when
  /// every product s_a · s_b of the wave's rows is a normal FP32 number. Each lane tests the rows
  /// its scale loads brought (every row of the wave once), not its kAtomsM x 4 register rows (each
  /// row 16 times over the wave). Every lane of the wave calls it.
  /// `more` (wave-uniform): false gives false (no tile to vote on), in the same ballot.
  FP8GEMM_DEVICE static bool vote(BlockScales const& sc, bool more = true) {
    bool normal = more;
    if constexpr (kFoldScales) {
      FP8GEMM_UNROLL
      for (int h = 0; h < kScaleLoadsA; ++h)
        normal = normal && Rule::normal(sc.vote_a[h] * sc.vote_b);
    }
    return Rule::vote(normal);
  }
  /// kSelected's multipliers for the tile (m1, m2) = fold ? (1, s_a · s_b) : (s_a, s_b), into
  /// (sc.a, sc.ab); fold is wave-uniform (vote).
  FP8GEMM_DEVICE static void select_scales(BlockScales& sc, bool fold) {
    if constexpr (kFoldScales) {
      float const sb = sc.vote_b;
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          sc.a[i][r] = fold ? 1.0f : sc.a[i][r];
          sc.ab[i][r] = fold ? sc.ab[i][r] : sb;
        }
      }
    }
  }

  /// A partial last K tile (tile t = full of the range, global K tile kt): its loads into stage 0
  /// (load_tail_tile: nothing past K is read), then its clusters back to back.
  FP8GEMM_DEVICE static void tail_tile(Arguments const& args, int m0, int n0, int k_tile_begin,
                                       int t, SharedStorage& lds, Coords const& tc, int wave,
                                       Accumulators& d) {
    int const kt = k_tile_begin + t;
    int const k0 = kt * Policy::kBlockK;
    load_tail_tile(args, m0, n0, k_tile_begin, t, lds, wave, tc.lane);
    ReadBase const rb = read_base(tc.lane, tc.wave_m, tc.wave_n);
    Fragments f;
    read_a(f.a, read_address(lds, rb, 0));
    if constexpr (kHardwareMx) load_scales_a(f.sa, args, tc, m0, kt);
    load_block_scales(f.scales, args, tc, m0, n0, k0);  // K-blocked: promoted after each MFMA
    if constexpr (kFoldScales) {
      fold_products(f.scales);
      select_scales(f.scales, vote(f.scales));
    }
    tail_clusters(std::make_integer_sequence<int, kClusters>{}, args, lds, n0, kt, tc, rb, f, d);
  }
  /// The tail tile's clusters back to back (the tail is not pipelined).
  template <int... c>
  FP8GEMM_DEVICE static void tail_clusters(std::integer_sequence<int, c...>, Arguments const& args,
                                           SharedStorage& lds, int n0, int kt, Coords const& tc,
                                           ReadBase const& rb, Fragments& f, Accumulators& d) {
    (tail_cluster<c>(args, lds, n0, kt, tc, rb, f, d), ...);
  }
  template <int c>
  FP8GEMM_DEVICE static void tail_cluster(Arguments const& args, SharedStorage& lds, int n0, int kt,
                                          Coords const& tc, ReadBase const& rb, Fragments& f,
                                          Accumulators& d) {
    Loads::template read_b_cluster<c>(f.b[c % 2], read_address(lds, rb, 0));
    if constexpr (kHardwareMx) load_scales_b(f.sb, args, tc, n0, kt, c);
    arch::wait_lgkmcnt<0>();  // waits for: this cluster's fragments
    mma_cluster<c>(std::make_integer_sequence<int, kClusterAtomsN * kAtomsM>{}, f, d);
  }
};

}  // namespace fp8gemm
