// SPDX-License-Identifier: MIT
/// Pieces of K-blocked and MX-32 scaling that several mainloops share (mainloop layer):
///   FoldOrTwice  the rule that promotes a scale block's partial sum into the accumulator, and the
///                warp's / wave's vote that picks its form (CDNA ping-pong, Hopper BlockScales);
///   e8m0_scale_byte  the E8M0 byte of an MX-32 scale array that an MFMA takes, 2^0 outside it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// A scale block's partial sum into the accumulator, with s_a, s_b its row's and column's scales:
///   acc = fma(partial, s_a · s_b, acc)     (folded: one operation per element)
///       when every product s_a · s_b the group votes on is a normal FP32 number;
///   acc = fma(partial · s_a, s_b, acc)     (fallback) otherwise,
/// so that a product outside FP32 (0, subnormal, inf, NaN) never scales a representable partial
/// sum. The choice is the group's (kVoteLanes: a 32-lane warp or a 64-lane wave), so no lane
/// diverges. Element forms for one float and for a register pair (CDNA's v_pk_fma_f32).
template <int kVoteLanes>
struct FoldOrTwice {
  static_assert(kVoteLanes == 32 || kVoteLanes == 64, "the vote is a warp's or a wave's");

  /// The test each product takes (not 0, subnormal, infinite or NaN).
  FP8GEMM_HOST_DEVICE static bool normal(float x) { return arch::is_normal_fp32(x); }
  /// True when `every_normal` holds on every lane of the group: a group-uniform choice. Every lane
  /// of the group must call it.
  FP8GEMM_DEVICE static bool vote(bool every_normal) {
    if constexpr (kVoteLanes == 64) {
      return arch::wave_all(every_normal);
    } else {
      return arch::warp_all(every_normal);
    }
  }

  FP8GEMM_HOST_DEVICE static float folded(float partial, float s_ab, float acc) {
    return fmaf(partial, s_ab, acc);
  }
  FP8GEMM_HOST_DEVICE static float fallback(float partial, float s_a, float s_b, float acc) {
    return fmaf(partial * s_a, s_b, acc);
  }
  FP8GEMM_DEVICE static arch::FloatPair folded(arch::FloatPair partial, arch::FloatPair s_ab,
                                               arch::FloatPair acc) {
    return arch::fma_pair(partial, s_ab, acc);
  }
  FP8GEMM_DEVICE static arch::FloatPair fallback(arch::FloatPair partial, arch::FloatPair s_a,
                                                 arch::FloatPair s_b, arch::FloatPair acc) {
    return arch::fma_pair(partial * s_a, s_b, acc);
  }
};

/// MX-32: the E8M0 byte of (row, MX block kb) of an [extent][cols] scale array; rows or blocks
/// outside it scale zero-filled data, so they get 2^0 (127). Branch free: an in-bounds address
/// always (row 0, block 0 exist), then a select.
template <class Granularity>
FP8GEMM_DEVICE std::uint8_t e8m0_scale_byte(ScaleView<Granularity> const& v, int row, int kb) {
  if constexpr (std::is_same_v<typename ScaleView<Granularity>::Element, e8m0>) {
    bool const inside = row < v.extent && kb < v.cols;
    std::uint8_t const bits = v.data[(inside ? row : 0) * v.cols + (inside ? kb : 0)].bits;
    return inside ? bits : std::uint8_t{127};
  } else {
    return 127;  // not reached: hardware MX needs e8m0 scales
  }
}

}  // namespace fp8gemm
