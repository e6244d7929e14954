// SPDX-License-Identifier: MIT
/// Kernel entry points (kernel layer): grouped tile order, the GEMM kernel, the split-K reduction.
#pragma once

#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/gemm_block.hpp"

namespace fp8gemm {

/// Grouped (L2-friendly) tile order: consecutive workgroups walk `group_m` tile rows down one tile
/// column before moving right, so a wave of workgroups shares A rows and B columns in L2.
/// group_m >= 1; a group taller than the matrix is one group (clamped, so group_m x tiles_n <=
/// tiles_m x tiles_n stays in int for any group_m).
struct TileCoord {
  int m, n;
};
FP8GEMM_HOST_DEVICE TileCoord grouped_tile(int linear, int tiles_m, int tiles_n, int group_m) {
  group_m = group_m < tiles_m ? group_m : tiles_m;
  int const per_group = group_m * tiles_n;
  int const group = linear / per_group;
  int const first_m = group * group_m;
  int const rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  int const in_group = linear % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

/// The body of the GEMM kernel: block (x = tile, y = split) -> GemmBlock.
template <class Config>
struct GemmKernel {
  using Block = GemmBlock<Config>;
  using Params = typename Config::Params;
  static constexpr int kThreads = Block::kThreads;
  static constexpr int kWaveSize = Config::Policy::Arch::kWaveSize;
  static constexpr int kSharedBytes = Block::kSharedBytes;

  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    auto& lds = *static_cast<typename Block::SharedStorage*>(shared);
    TileCoord const t = grouped_tile(arch::block_idx_x(), p.tiles_m, p.tiles_n, p.group_m);
    if (p.split_k == 1) {
      int const k_tiles = (p.k + Config::Policy::kBlockK - 1) / Config::Policy::kBlockK;
      Block::run_tile(p, t.m, t.n, 0, k_tiles, lds);
    } else {
      Block::run_partial(p, t.m, t.n, arch::block_idx_y(), lds);
    }
  }
};

/// Split-K reduction: C = epilogue(sum over splits, in split order, of workspace) — deterministic.
/// One thread per output element, kThreads per workgroup.
template <class Config>
struct SplitKReduceKernel {
  using Params = typename Config::Params;
  static constexpr int kThreads = 256;
  static constexpr int kWaveSize = Config::Policy::Arch::kWaveSize;
  static constexpr int kSharedBytes = 0;

  FP8GEMM_DEVICE static void run(Params const& p, void*) {
    std::int64_t const idx = std::int64_t(arch::block_idx_x()) * kThreads + arch::thread_idx();
    std::int64_t const total = std::int64_t(p.m) * p.n;
    float amax = 0.0f;
    if (idx < total) {
      float sum = 0.0f;
      for (int s = 0; s < p.split_k; ++s) sum += p.workspace[s * total + idx];
      amax = GemmBlock<Config>::finish_element(p, static_cast<int>(idx / p.n), static_cast<int>(idx % p.n), sum);
    }
    if (p.epilogue.amax != nullptr && idx < total) arch::atomic_max_nonnegative(p.epilogue.amax, amax);
  }
};

}  // namespace fp8gemm
