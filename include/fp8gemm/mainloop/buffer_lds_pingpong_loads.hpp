// SPDX-License-Identifier: MIT
/// BufferLdsPingPongMainloop's loads and LDS reads (mainloop layer): per thread, where its loads
/// come from in global memory (Operands), the tile loads each L phase issues (direct to LDS, or
/// through registers and a ds_write a K tile later), the MX-32 E8M0 byte loads, the Blockwise scale
/// loads and reads, and the fragment reads from LDS. The order they issue in is the schedule's
/// (buffer_lds_pingpong_schedule.hpp); the pipeline (buffer_lds_pingpong.hpp) calls them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_policy.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong_schedule.hpp"
#include "fp8gemm/mainloop/common.hpp"
#include "fp8gemm/mainloop/scale_promotion.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// S: a BufferLdsPingPongSchedule (of a BufferLdsPingPongPolicy, its base).
template <class S>
struct BufferLdsPingPongLoads : S {
  // What the loads take from the policy and the schedule.
  using typename S::Arguments;
  using typename S::Atom;
  using typename S::FragTileA;
  using typename S::FragTileB;
  using typename S::Granularity;
  using typename S::LdsLayoutA;
  using typename S::LdsLayoutB;
  using typename S::Operands;
  using typename S::Policy;
  using typename S::ReadBase;
  using typename S::SharedStorage;
  using Coords = ThreadCoords<Policy>;
  using S::a_imm;
  using S::a_loads_in_phase;
  using S::a_slot0;
  using S::b_imm;
  using S::b_slot0;
  using S::kAtomsM;
  using S::kAtomsN;
  using S::kClusterAtomsN;
  using S::kClusters;
  using S::kFoldScales;
  using S::kHardwareMx;
  using S::kKBlockedScales;
  using S::kLanesPerSlot;
  using S::kLoadBytes;
  using S::kLoadsA;
  using S::kLoadsBPart;
  using S::kLoadsInMPhase;
  using S::kOneScaleB;
  using S::kPartialSets;
  using S::kReadsPerFragment;
  using S::kScaleLoads;
  using S::kScaleLoadsA;
  using S::kScaleRowsA;
  using S::kSlotBytes;
  using S::kStaged;
  using S::kStagedWriteVmcnt;
  using S::kThreads;
  using S::kWaveSize;
  using S::load_k;
  using S::nth_a_load;
  using S::phase_loads;
  using S::phase_tile_loads;
  using S::scale_slot;

  /// K-blocked scales of one K tile per accumulator row (A) / column (B) register.
  struct BlockScales {
    float a[kKBlockedScales ? kAtomsM : 1][Atom::kCRegs];  // s_a (kSelected: m1)
    float b[kKBlockedScales ? kAtomsN : 1][Atom::kCRegs];  // s_b
    float ab[kFoldScales ? kAtomsM : 1][Atom::kCRegs];     // s_a · s_b (kSelected: m2)
    float vote_a[kFoldScales ? kScaleLoadsA : 1];  // next tile: s_a of rows 64h + lane (vote)
    float vote_b;                                  // next tile: the wave tile's s_b (vote)
  };

  /// This thread's fragments: A (all atoms of the wave tile, one K tile) and two B clusters.
  struct Fragments {
    FragTileA a[kAtomsM];
    FragTileB b[2][kClusterAtomsN];  // [cluster % 2][atom in cluster]
    // MX-32: this lane's E8M0 bytes (each in bits 7..0 of its buffer_load_ubyte's register) of A
    // per half of the clusters (mx_half) and atom, and of B per atom: cluster c's are reloaded for
    // the next tile once cluster c has multiplied. NOTE: one register per load, never copied (a
    // copy at the end of the trip would wait for loads the trip has just issued).
    std::uint32_t sa[2][kAtomsM];
    std::uint32_t sb[kAtomsN];
    BlockScales scales;  // K-blocked scales of the tile in flight
    // promoting: the last kPartialSets atoms' results (one K tile each)
    float partial[kPartialSets][Atom::kCRegs];
    // kStaged: load n of phase c of the last tile issued, 16 bytes, until its ds_write a tile later
    arch::Vec<16> staged[kStaged ? kClusters : 1][kStaged ? kLoadsA + kLoadsBPart : 1];
  };

  /// Load n of L phase c of tile s (the schedule in the struct comment): its K tile t, source
  /// (range, voffset, soffset) and LDS destination (the wave's block in stage t % 2), handed to
  /// op(range, lds_wave, voffset, soffset, t).
  template <int c, int n, class Op>
  FP8GEMM_DEVICE static void phase_load(Operands const& ops, SharedStorage& lds, int s, Op&& op) {
    constexpr int kA = a_loads_in_phase(c);
    int const t = c == 0 ? s + 1 : s + 2;
    std::uint32_t const k = ops.k_offset(t);
    if constexpr (n < kA) {
      constexpr int j = nth_a_load(c, n);
      op(ops.a, lds.a[t & 1] + a_slot0(j, ops.wave) * kSlotBytes, ops.voff_a[j], k, t);
    } else {
      constexpr int p = c == 0 ? kClusters - 1 : c - 1, q = n - kA;
      op(ops.b, lds.b[t & 1] + b_slot0(p, q, ops.wave) * kSlotBytes, ops.voff_b[p][q], k, t);
    }
  }
  /// One tile load landing in LDS without a counted wait: direct, or through registers with the
  /// ds_write at once (the compiler waits for the registers).
  FP8GEMM_DEVICE static void load_now(arch::BufferRange const& r, std::uint8_t* lds_wave,
                                      std::uint32_t voffset, std::uint32_t soffset, int lane) {
    if constexpr (kStaged) {
      arch::lds_store<16>(lds_wave, 16 * lane, arch::buffer_load16(r, voffset, soffset));
    } else {
      arch::buffer_load_lds<kLoadBytes>(r, lds_wave, voffset, soffset);
    }
  }
  /// Load n of L phase c of tile s: direct-to-LDS; through registers into f.staged (the prologue:
  /// tile 0 straight into LDS).
  /// kPrologue (kStaged): the staged loads keep the schedule's order (a scheduling fence after
  /// each): kStagedWriteVmcnt counts the loads issued after each one from its issue on, and the
  /// loop's first ds_writes take the compiler's count from the prologue's order (issued A, A, B,
  /// B instead of A, B, A, B, one write came out vmcnt(kStagedWriteVmcnt - 1)).
  template <int c, int n, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_load(Operands const& ops, SharedStorage& lds, int s,
                                              Fragments& f) {
    if constexpr (n >= phase_tile_loads(c)) {
      issue_scale_load<n - phase_tile_loads(c)>(ops, lds, s);  // Blockwise, last in L_0
      return;
    } else {
      phase_load<c, n>(ops, lds, s,
                       [&](arch::BufferRange const& r, std::uint8_t* dst, std::uint32_t voffset,
                           std::uint32_t soffset, int t) {
                         if constexpr (kStaged) {
                           if (t == 0) {
                             load_now(r, dst, voffset, soffset, ops.lane);
                           } else {
                             f.staged[c][n] = arch::buffer_load16_counted(r, voffset, soffset);
                             if constexpr (kPrologue) arch::schedule_fence();
                           }
                         } else {
                           arch::buffer_load_lds<kLoadBytes>(r, dst, voffset, soffset);
                         }
                       });
    }
  }
  /// Blockwise: scale load h of L_0 of tile s, the scales of tile t = s + 1 into stage t % 2 of
  /// the wave's lds.scales (read in L_0 of tile t): A rows 64h + lane of the wave tile (h <
  /// kScaleLoadsA), then its B columns. Direct-to-LDS dwords, also where the tiles go through
  /// registers.
  template <int h>
  FP8GEMM_DEVICE static void issue_scale_load(Operands const& ops, SharedStorage& lds, int s) {
    if constexpr (kKBlockedScales) {
      // kStaged: the compiler would move it above the tile load before it, off the schedule that
      // kStagedWriteVmcnt counts
      if constexpr (kStaged) arch::schedule_fence();
      int const t = s + 1;
      float* const dst = lds.scales + scale_slot(t & 1, ops.wave);
      if constexpr (h < kScaleLoadsA) {
        arch::buffer_load_lds4(ops.sc_a_range, reinterpret_cast<std::uint8_t*>(dst + h * kWaveSize),
                               ops.sc_a_voff[h], ops.scale_offset(t) * ops.sc_a_kstride);
      } else {
        constexpr int hb = h - kScaleLoadsA;
        arch::buffer_load_lds4(ops.sc_b_range,
                               reinterpret_cast<std::uint8_t*>(dst + kScaleRowsA + hb * kWaveSize),
                               ops.sc_b_voff[hb], ops.scale_offset(t));
      }
    }
  }
  /// kStaged: writes f.staged[c][n] (load n of phase c of tile s - 1: K tile t - 1) to its place
  /// in LDS, before the same load of tile s reuses the registers.
  template <int c, int n>
  FP8GEMM_DEVICE static void write_staged(Operands const& ops, SharedStorage& lds, int s,
                                          Fragments const& f) {
    if constexpr (n < phase_tile_loads(c))  // the Blockwise scale loads go straight to LDS
      phase_load<c, n>(
          ops, lds, s - 1,
          [&](arch::BufferRange const&, std::uint8_t* dst, std::uint32_t, std::uint32_t, int) {
            // waits for: this load of the previous tile (kStagedWriteVmcnt)
            arch::wait_vmcnt_visible<kStagedWriteVmcnt>();
            if constexpr (kScaleLoads > 0) {  // not behind the compiler's vmcnt(0) for the scales
              arch::lds_write16_counted(dst, 16 * ops.lane, f.staged[c][n]);
            } else {
              arch::lds_store<16>(dst, 16 * ops.lane, f.staged[c][n]);
            }
          });
  }
  /// kLoadsInMPhase: loads [n, end) of L phase c of tile s, after one MFMA of M_(c-1) (each
  /// staged load first writes the previous tile's registers of the same load to LDS).
  template <int c, int n, int end>
  FP8GEMM_DEVICE static void issue_phase_loads_in_m(Operands const& ops, SharedStorage& lds, int s,
                                                    Fragments& f) {
    if constexpr (kStaged) write_staged<c, n>(ops, lds, s, f);
    issue_phase_load<c, n>(ops, lds, s, f);
    if constexpr (n + 1 < end) issue_phase_loads_in_m<c, n + 1, end>(ops, lds, s, f);
  }
  template <int c, bool kPrologue, int n = 0>
  FP8GEMM_DEVICE static void issue_phase_loads_from(Operands const& ops, SharedStorage& lds, int s,
                                                    Fragments& f) {
    issue_phase_load<c, n, kPrologue>(ops, lds, s, f);
    if constexpr (n + 1 < phase_loads(c))
      issue_phase_loads_from<c, kPrologue, n + 1>(ops, lds, s, f);
  }
  /// The loads of L phase c of tile s (none for tiles before 0: the prologue).
  template <int c, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_loads(Operands const& ops, SharedStorage& lds, int s,
                                               Fragments& f) {
    if ((c == 0 ? s + 1 : s + 2) >= 0) issue_phase_loads_from<c, kPrologue>(ops, lds, s, f);
  }
  /// The prologue: L phases of tile s without waits, the same loads as in the loop (so every count
  /// of the schedule holds from tile 0 on; kLoadsInMPhase: L_0's tile loads of tile 0 follow).
  template <int c = 0>
  FP8GEMM_DEVICE static void issue_step_loads(Operands const& ops, SharedStorage& lds, int s,
                                              Fragments& f) {
    if constexpr (kLoadsInMPhase) {  // the loop's order: a phase's tile loads, then its bytes
      issue_phase_loads<c, /*kPrologue=*/true>(ops, lds, s, f);
      issue_phase_scale_loads<c, /*kPrologue=*/true>(f, ops, s);
    } else {
      issue_phase_scale_loads<c, /*kPrologue=*/true>(f, ops, s);
      issue_phase_loads<c, /*kPrologue=*/true>(ops, lds, s, f);
    }
    if constexpr (c + 1 < kClusters) issue_step_loads<c + 1>(ops, lds, s, f);
  }

  /// MX-32: the E8M0 byte loads of L phase c of tile s (scale_loads(c) of them): B cluster c-1 of
  /// tile s+1 (c = 0: cluster kClusters-1 of tile s), whose bytes in f.sb the tile's M_(c-1) has
  /// just used; in L_0 also A's second half copy of tile s (M_(kClusters-1) of tile s-1 has just
  /// used it), in L_(kClusters/2) A's first half copy of tile s+1 (M_(kClusters/2-1) has).
  /// NOTE: the prologue's bytes are sign-extended (buffer_load_sbyte), the loop's zero-extended:
  /// the MFMA reads byte 0 only, and with both kinds of values entering the loop the compiler keeps
  /// the loop-carried registers 32-bit (with zero-extended bytes alone it carries them as i8 and
  /// widens each again, v_and 0xff, with a wait for its load, at the top of the loop).
  template <int c, bool kPrologue = false>
  FP8GEMM_DEVICE static void issue_phase_scale_loads(Fragments& f, Operands const& ops, int s) {
    if constexpr (kHardwareMx) {
      auto load = [](arch::BufferRange const& r, std::uint32_t voffset, std::uint32_t soffset) {
        std::uint32_t const byte = arch::buffer_load_u8(r, voffset, soffset);
        if constexpr (kPrologue)
          return static_cast<std::uint32_t>(
              static_cast<std::int8_t>(static_cast<std::uint8_t>(byte)));
        return byte;
      };
      constexpr int kCluster = c == 0 ? kClusters - 1 : c - 1;
      std::uint32_t const kb = ops.mx_offset(c == 0 ? s : s + 1);
      FP8GEMM_UNROLL
      for (int q = 0; q < kClusterAtomsN; ++q) {
        int const j = kCluster * kClusterAtomsN + q;
        f.sb[j] = load(ops.mx_b_range, ops.mx_b[j], kb);
      }
      if constexpr (c == 0 || c == kClusters / 2) {
        constexpr int kHalf = c == 0 ? 1 : 0;
        std::uint32_t const kb_a = ops.mx_offset(c == 0 ? s : s + 1);
        FP8GEMM_UNROLL
        for (int i = 0; i < kAtomsM; ++i) f.sa[kHalf][i] = load(ops.mx_a_range, ops.mx_a[i], kb_a);
      }
    }
  }

  /// The LDS addresses of this lane's reads in one stage: A chunks, B chunks.
  struct ReadAddress {
    arch::LdsAddress a[kReadsPerFragment];
    arch::LdsAddress b[kReadsPerFragment];
  };
  FP8GEMM_DEVICE static ReadAddress read_address(SharedStorage const& lds, ReadBase const& rb,
                                                 int stage) {
    arch::LdsAddress const a0 = arch::lds_address(lds.a[0]) + stage * LdsLayoutA::kBytes;
    arch::LdsAddress const b0 = arch::lds_address(lds.b[0]) + stage * LdsLayoutB::kBytes;
    ReadAddress ra{};
    FP8GEMM_UNROLL
    for (int c = 0; c < kReadsPerFragment; ++c) ra.a[c] = a0 + rb.a[c], ra.b[c] = b0 + rb.b[c];
    return ra;
  }

  template <int kImm, class Frag>
  FP8GEMM_DEVICE static void read_fragment(Frag& f,
                                           arch::LdsAddress const (&address)[kReadsPerFragment]) {
    FP8GEMM_UNROLL
    for (int c = 0; c < kReadsPerFragment; ++c) {
      arch::Vec<16> v;
      arch::lds_read16_counted<kImm>(v, address[c]);
      FP8GEMM_UNROLL
      for (int w = 0; w < 4; ++w) f.w[4 * c + w] = v.w[w];
    }
  }
  /// A fragments (ra: the stage's addresses).
  template <int i = 0>
  FP8GEMM_DEVICE static void read_a(FragTileA (&fa)[kAtomsM], ReadAddress const& ra) {
    read_fragment<a_imm(0, i)>(fa[i], ra.a);
    if constexpr (i + 1 < kAtomsM) read_a<i + 1>(fa, ra);
  }
  /// B fragments of cluster kCluster (ra: the stage's addresses).
  template <int kCluster, int q = 0>
  FP8GEMM_DEVICE static void read_b_cluster(FragTileB (&fb)[kClusterAtomsN],
                                            ReadAddress const& ra) {
    read_fragment<b_imm(0, kCluster, q)>(fb[q], ra.b);
    if constexpr (q + 1 < kClusterAtomsN) read_b_cluster<kCluster, q + 1>(fb, ra);
  }

  /// The partial last K tile (tile t of the range; K % kBlockK != 0) into stage 0 by the same
  /// tile loads, where loads of 16-byte chunks past K get an offset outside the range (zeros);
  /// then the chunk K falls in (K % 16 != 0) is written byte by byte, from global memory below K
  /// and zero above, so nothing past K is read. Returns with the tile in LDS (every thread's).
  FP8GEMM_DEVICE static void load_tail_tile(Arguments const& args, int m0, int n0, int k_tile_begin,
                                            int t, SharedStorage& lds, int wave, int lane) {
    constexpr std::uint32_t kOutOfRange = 0x80000000u;  // >= any num_records (< 2^31)
    int const kt = k_tile_begin + t;
    int const k0 = kt * Policy::kBlockK;
    int const k_valid = args.a.cols - k0;  // 1 .. kBlockK - 1 bytes of each row in this tile
    int const whole_chunks = k_valid / 16;
    Operands const ops = Operands::make(args, m0, n0, k_tile_begin, t + 1, wave, lane);
    std::uint32_t const k = ops.k_offset(t);
    FP8GEMM_UNROLL
    for (int j = 0; j < kLoadsA; ++j) {
      int const slot = a_slot0(j, wave) + lane / kLanesPerSlot;
      bool const inside = S::template load_k<LdsLayoutA>(slot, lane) / 16 < whole_chunks;
      load_now(ops.a, lds.a[0] + a_slot0(j, wave) * kSlotBytes,
               inside ? ops.voff_a[j] : kOutOfRange, k, lane);
    }
    FP8GEMM_UNROLL
    for (int p = 0; p < kClusters; ++p) {
      FP8GEMM_UNROLL
      for (int q = 0; q < kLoadsBPart; ++q) {
        int const slot = b_slot0(p, q, wave) + lane / kLanesPerSlot;
        bool const inside = S::template load_k<LdsLayoutB>(slot, lane) / 16 < whole_chunks;
        load_now(ops.b, lds.b[0] + b_slot0(p, q, wave) * kSlotBytes,
                 inside ? ops.voff_b[p][q] : kOutOfRange, k, lane);
      }
    }
    arch::wait_vmcnt<0>();  // waits for: this thread's tail loads
    arch::sync_block();     // waits for: every thread's tail loads in LDS
    if (k_valid % 16 != 0) {
      // Chunk whole_chunks of every row: byte b from global memory when below K, else zero.
      int const kc = 16 * whole_chunks;
      for (int idx = arch::thread_idx(); idx < (Policy::kBlockM + Policy::kBlockN) * 16;
           idx += kThreads) {
        int const row = idx / 16, kk = kc + idx % 16;
        bool const is_a = row < Policy::kBlockM;
        int const r = is_a ? row : row - Policy::kBlockM;
        int const grow = (is_a ? m0 : n0) + r;
        bool const inside = grow < (is_a ? args.a.rows : args.b.rows) && kk < k_valid;
        arch::Vec<1> v;
        v.b[0] = 0;
        if (inside) {
          v.b[0] =
              is_a ? reinterpret_cast<std::uint8_t const*>(args.a.data)[grow * args.a.ld + k0 + kk]
                   : reinterpret_cast<std::uint8_t const*>(args.b.data)[grow * args.b.ld + k0 + kk];
        }
        if (is_a) {
          arch::lds_store<1>(lds.a[0], LdsLayoutA::offset(r, kk), v);
        } else {
          arch::lds_store<1>(lds.b[0], LdsLayoutB::offset(r, kk), v);
        }
      }
      arch::sync_block();  // waits for: the chunk at K written by every thread
    }
  }

  /// MX-32 in hardware, the tail tile: this lane's E8M0 bytes of K tile kt, for row (column)
  /// lane % kM of each atom and the MX block lane / kM of the atom's K (by lane index, per the
  /// ISA; see LdsMultistageMainloop::multiply_step). Rows or blocks outside the matrix get 2^0.
  FP8GEMM_DEVICE static void load_scales_a(std::uint32_t (&sa)[2][kAtomsM], Arguments const& args,
                                           Coords const& tc, int m0, int kt) {
    int const kb = kt * Policy::kBlockK / 32 + tc.lane / Atom::kM;
    FP8GEMM_UNROLL
    for (int i = 0; i < kAtomsM; ++i) {
      sa[0][i] = e8m0_scale_byte(
          args.scale_a, m0 + tc.wave_m * Policy::kWaveTileM + i * Atom::kM + tc.lane % Atom::kM,
          kb);
      sa[1][i] = sa[0][i];
    }
  }
  FP8GEMM_DEVICE static void load_scales_b(std::uint32_t (&sb)[kAtomsN], Arguments const& args,
                                           Coords const& tc, int n0, int kt, int cluster) {
    int const kb = kt * Policy::kBlockK / 32 + tc.lane / Atom::kN;
    FP8GEMM_UNROLL
    for (int q = 0; q < kClusterAtomsN; ++q)
      sb[cluster * kClusterAtomsN + q] =
          e8m0_scale_byte(args.scale_b,
                          n0 + tc.wave_n * Policy::kWaveTileN +
                              (cluster * kClusterAtomsN + q) * Atom::kN + tc.lane % Atom::kN,
                          kb);
  }

  /// Blockwise: the scales of K tile s from LDS (loaded one tile ahead; the wait before L_0
  /// counts them): A rows 16i + 4 (lane / 16) + r of atom i, 4 consecutive floats, one
  /// ds_read_b128 per atom; B column 16j + lane % 16 of atom j, the same for its 4 registers, one
  /// ds_read_b32 per atom (when a scale block spans the wave tile: one ds_read_b128 of columns
  /// 0 .. 3, all the same).
  FP8GEMM_DEVICE static void read_block_scales(BlockScales& sc, SharedStorage& lds,
                                               Operands const& ops, Coords const& tc, int s) {
    if constexpr (kKBlockedScales) {
      static_assert(Atom::kCRegs == 4 && Atom::kM == 16 && Atom::kN == 16,
                    "one ds_read_b128 of 4 rows per atom");
      arch::LdsAddress const base =
          arch::lds_address(reinterpret_cast<std::uint8_t const*>(lds.scales)) +
          4 * scale_slot(s & 1, ops.wave);
      read_scales_a(sc, base + 4 * (4 * (tc.lane / 16)));
      // folded: the B scale came with the vote (sc.vote_b, read one tile ahead)
      if constexpr (!kFoldScales) read_scales_b(sc, base, base + 4 * (tc.lane % 16));
    }
  }
  template <int i = 0>
  FP8GEMM_DEVICE static void read_scales_a(BlockScales& sc, arch::LdsAddress address) {
    arch::Vec<16> v;
    arch::lds_read16_counted<4 * i * Atom::kM>(v, address);
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kCRegs; ++r) sc.a[i][r] = __builtin_bit_cast(float, v.w[r]);
    if constexpr (i + 1 < kAtomsM) read_scales_a<i + 1>(sc, address);
  }
  template <int j = 0>
  FP8GEMM_DEVICE static void read_scales_b(BlockScales& sc, arch::LdsAddress base,
                                           arch::LdsAddress address) {
    float b;
    if constexpr (kOneScaleB) {
      arch::Vec<16> v;
      arch::lds_read16_counted<4 * kScaleRowsA>(v, base);
      b = __builtin_bit_cast(float, v.w[0]);
    } else {
      arch::Vec<4> v;
      arch::lds_read4_counted<4 * (kScaleRowsA + j * Atom::kN)>(v, address);
      b = __builtin_bit_cast(float, v.w[0]);
    }
    FP8GEMM_UNROLL
    for (int jj = kOneScaleB ? 0 : j; jj < (kOneScaleB ? kAtomsN : j + 1); ++jj) {
      FP8GEMM_UNROLL
      for (int r = 0; r < Atom::kCRegs; ++r) sc.b[jj][r] = b;
    }
    if constexpr (!kOneScaleB && j + 1 < kAtomsN) read_scales_b<j + 1>(sc, base, address);
  }

  /// Blockwise, folded: the vote's scales of K tile t from LDS (stage t % 2): s_a of rows
  /// 64h + lane of the wave tile (the rows this lane's scale loads brought: every row of the wave
  /// once) and the wave tile's B scale, 4 bytes each (kVoteReadBytes). Waited for by a counted
  /// lgkmcnt before vote.
  FP8GEMM_DEVICE static void read_vote_scales(BlockScales& sc, SharedStorage& lds,
                                              Operands const& ops, Coords const& tc, int t) {
    if constexpr (kFoldScales) {
      arch::LdsAddress const base =
          arch::lds_address(reinterpret_cast<std::uint8_t const*>(lds.scales)) +
          4 * scale_slot(t & 1, ops.wave);
      read_vote_scales_a(sc, base + 4 * tc.lane);
      arch::Vec<4> v;
      arch::lds_read4_counted<4 * kScaleRowsA>(v, base);
      sc.vote_b = __builtin_bit_cast(float, v.w[0]);
    }
  }
  template <int h = 0>
  FP8GEMM_DEVICE static void read_vote_scales_a(BlockScales& sc, arch::LdsAddress address) {
    arch::Vec<4> v;
    arch::lds_read4_counted<4 * h * kWaveSize>(v, address);
    sc.vote_a[h] = __builtin_bit_cast(float, v.w[0]);
    if constexpr (h + 1 < kScaleLoadsA) read_vote_scales_a<h + 1>(sc, address);
  }

  /// The K-blocked scales of one K tile (scale block of k = chunk_k), per accumulator row / column
  /// register, straight from global memory: the partial last K tile's (tail_tile; the loop's come
  /// through LDS, read_block_scales). Rows past M / N take the last row's scale: their partial
  /// sums are zero (zero-filled A / B) and their outputs never stored.
  FP8GEMM_DEVICE static void load_block_scales(BlockScales& sc, Arguments const& args,
                                               Coords const& tc, int m0, int n0, int chunk_k) {
    if constexpr (kKBlockedScales) {
      FP8GEMM_UNROLL
      for (int i = 0; i < kAtomsM; ++i) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          int const row = m < args.scale_a.extent ? m : args.scale_a.extent - 1;
          sc.a[i][r] = args.scale_a.block(row, chunk_k, Granularity::kABlockM);
        }
      }
      FP8GEMM_UNROLL
      for (int j = 0; j < kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; ++r) {
          int const n = n0 + tc.col(j, r);
          int const row = n < args.scale_b.extent ? n : args.scale_b.extent - 1;
          sc.b[j][r] = args.scale_b.block(row, chunk_k, Granularity::kBBlockN);
        }
      }
      if constexpr (kFoldScales) {  // the vote's rows (read_vote_scales)
        FP8GEMM_UNROLL
        for (int h = 0; h < kScaleLoadsA; ++h) {
          int const m = m0 + tc.wave_m * Policy::kWaveTileM + h * kWaveSize + tc.lane;
          int const row = m < args.scale_a.extent ? m : args.scale_a.extent - 1;
          sc.vote_a[h] = args.scale_a.block(row, chunk_k, Granularity::kABlockM);
        }
        sc.vote_b = sc.b[0][0];
      }
    }
  }
};

}  // namespace fp8gemm
