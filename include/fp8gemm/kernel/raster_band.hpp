// SPDX-License-Identifier: MIT
/// The height of the persistent scheduler's raster band (kernel layer), shared by the scheduler
/// (PersistentTileScheduler::auto_band_m) and the selection model's DRAM term
/// (device/selection/model.hpp), so the model counts the re-reads the scheduler's order causes.
#pragma once

#include <cstdint>

#include "fp8gemm/config.hpp"

namespace fp8gemm {

/// Tile rows per band for `tiles` tiles in flight of block_m x block_n: the least g with
///   g (g + 1) block_m >= tiles block_n
/// (the g that minimizes the bytes a wave of tiles reads; docs/performance.md#raster-band-height).
FP8GEMM_HOST_DEVICE constexpr int raster_band_rows(std::int64_t tiles, int block_m, int block_n) {
  std::int64_t const wave = (tiles > 1 ? tiles : 1) * block_n;
  int g = 1;
  while (std::int64_t(g) * (g + 1) * block_m < wave) ++g;
  return g;
}

}  // namespace fp8gemm
