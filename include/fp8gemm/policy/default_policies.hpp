// SPDX-License-Identifier: MIT
/// Named default tile policies per target (policy layer).
#pragma once

#include "fp8gemm/arch/nvidia/sm89_mma.hpp"
#include "fp8gemm/policy/tile_policy.hpp"

namespace fp8gemm {

/// Hopper, portable mma.sync path: 128 x 128 x 128 block tile, 8 warps (2 x 4) of 64 x 32,
/// two LDS stages = 2 x (128 + 128) x 144 B = 72 KiB.
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90Default = TilePolicy<128, 128, 128, 2, 4, arch::Sm89Mma16x8x32<EA, EB>, 2>;

/// Hopper, small-M (decode) shapes: 64 x 128 x 128, 4 warps (1 x 4) of 64 x 32.
template <class EA = e4m3fn, class EB = e4m3fn>
using Sm90SmallM = TilePolicy<64, 128, 128, 1, 4, arch::Sm89Mma16x8x32<EA, EB>, 2>;

}  // namespace fp8gemm
