// SPDX-License-Identifier: MIT
/// What every matrix-instruction atom provides to the mainloop (arch layer), and the host
/// emulator's execution of an atom.
///
/// An atom computes D[kM x kN] f32 += A[kM x kK] * B[kK x kN] over kThreads threads (one wave
/// for every atom here: MFMA, mma.sync; a warpgroup atom would declare 128). Each lane holds
///   A: kAChunks chunks of kAChunkBytes bytes contiguous in K; chunk c of lane l covers row
///      a_row(l, c), k = a_k(l, c) .. +kAChunkBytes          (A tile addressed M x K)
///   B: kBChunks chunks of kBChunkBytes bytes contiguous in K; chunk c covers column b_col(l, c),
///      k = b_k(l, c) .. +kBChunkBytes                        (B tile addressed N x K)
///   D: kCRegs floats; register r is element (c_row(l, r), c_col(l, r))
/// Chunk c occupies bytes [c * kXChunkBytes, +kXChunkBytes) of the fragment. kLdsReadBytes: the
/// width of the atom's LDS row reads, from which tile/lds_layout.hpp pads the LDS rows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#if defined(FP8GEMM_EMULATOR)
#include "fp8gemm/arch/emu/matrix_semantics.hpp"
#endif

namespace fp8gemm::arch {

/// Raw fragment bytes of one operand of one atom, as 32-bit registers.
template <int Bytes>
struct Fragment {
  static_assert(Bytes % 4 == 0, "fragments are whole 32-bit registers");
  std::uint32_t w[Bytes / 4];
};

#if defined(FP8GEMM_EMULATOR)
/// Host emulator: one matrix instruction as a wave collective. Every lane hands in its registers;
/// the last lane to arrive executes the instruction for the whole wave per `Semantics`.
template <class Semantics, class ElementA, class ElementB, int ABytes, int BBytes, int CRegs>
inline void emulate_mma(float (&d)[CRegs], Fragment<ABytes> const& a, Fragment<BBytes> const& b) {
  static_assert(
      ABytes == Semantics::kABytes && BBytes == Semantics::kBBytes && CRegs == Semantics::kCRegs,
      "atom fragment sizes must match the instruction");
  emu::MmaLaneSlot slot{d, reinterpret_cast<std::uint8_t const*>(a.w),
                        reinterpret_cast<std::uint8_t const*>(b.w)};
  emu::wave_collective(&slot, [](void** slots) {
    emu::execute_mma<Semantics, ElementA, ElementB>(slots, emu::wave_size());
  });
}

/// The scaled (MX) form: each lane also hands in one E8M0 scale byte for A and one for B.
template <class Semantics, class ElementA, class ElementB, int ABytes, int BBytes, int CRegs>
inline void emulate_mma_scaled(float (&d)[CRegs], Fragment<ABytes> const& a,
                               Fragment<BBytes> const& b, std::uint8_t scale_a,
                               std::uint8_t scale_b) {
  emu::MmaLaneSlot slot{d, reinterpret_cast<std::uint8_t const*>(a.w),
                        reinterpret_cast<std::uint8_t const*>(b.w), scale_a, scale_b};
  emu::wave_collective(&slot, [](void** slots) {
    emu::execute_mma<Semantics, ElementA, ElementB, /*kScaled=*/true>(slots, emu::wave_size());
  });
}
#endif

/// Loads an atom's A fragment from an LDS tile (K contiguous, addressed by `Layout::offset(row,
/// k)`, tile/lds_layout.hpp) whose atom starts at row0, k0: one LDS access of kAChunkBytes per
/// chunk, at the atom's documented layout.
template <class Atom, class Layout>
FP8GEMM_DEVICE void load_fragment_a_by_chunks(typename Atom::FragA& f, std::uint8_t const* lds,
                                              int lane, int row0, int k0) {
  FP8GEMM_UNROLL
  for (int c = 0; c < Atom::kAChunks; ++c) {
    Vec<Atom::kAChunkBytes> v;
    lds_load<Atom::kAChunkBytes>(
        v, lds, Layout::offset(row0 + Atom::a_row(lane, c), k0 + Atom::a_k(lane, c)));
    FP8GEMM_UNROLL
    for (int w = 0; w < Atom::kAChunkBytes / 4; ++w) f.w[c * (Atom::kAChunkBytes / 4) + w] = v.w[w];
  }
}

/// The same for B (the LDS tile is N x K): column col0 + b_col, k0 + b_k.
template <class Atom, class Layout>
FP8GEMM_DEVICE void load_fragment_b_by_chunks(typename Atom::FragB& f, std::uint8_t const* lds,
                                              int lane, int col0, int k0) {
  FP8GEMM_UNROLL
  for (int c = 0; c < Atom::kBChunks; ++c) {
    Vec<Atom::kBChunkBytes> v;
    lds_load<Atom::kBChunkBytes>(
        v, lds, Layout::offset(col0 + Atom::b_col(lane, c), k0 + Atom::b_k(lane, c)));
    FP8GEMM_UNROLL
    for (int w = 0; w < Atom::kBChunkBytes / 4; ++w) f.w[c * (Atom::kBChunkBytes / 4) + w] = v.w[w];
  }
}

/// Atoms with a faster fragment load than one access per chunk (NVIDIA: ldmatrix) declare
/// kHasFragmentLoads = true and provide load_a<Layout> / load_b<Layout> with the signature of the
/// functions above; the others use those.
template <class Atom, class = void>
struct has_fragment_loads : std::false_type {};
template <class Atom>
struct has_fragment_loads<Atom, std::void_t<decltype(Atom::kHasFragmentLoads)>>
    : std::bool_constant<Atom::kHasFragmentLoads> {};

/// Atoms whose instruction applies OCP MX-32 E8M0 scales itself declare kHardwareMx32 = true and
/// provide mma_scaled(d, a, b, scale_a_byte, scale_b_byte) with one scale byte per lane: lane l's
/// byte scales row (column) l % kM for the MX-32 block k = 32*(l/kM) .. +31 of the atom's K. The
/// association is by lane index, not by the K values the lane's fragment holds (on gfx950 those
/// are two 16-byte chunks at k0 and k0 + kK/2, which straddle two MX blocks).
template <class Atom, class = void>
struct has_hardware_mx32 : std::false_type {};
template <class Atom>
struct has_hardware_mx32<Atom, std::void_t<decltype(Atom::kHardwareMx32)>>
    : std::bool_constant<Atom::kHardwareMx32> {};

}  // namespace fp8gemm::arch
