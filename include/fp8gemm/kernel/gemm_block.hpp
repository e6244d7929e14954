// SPDX-License-Identifier: MIT
/// GemmBlock: one output tile, mainloop + fused epilogue, for users who write their own kernels
/// (kernel layer). The caller provides the LDS (SharedStorage) and picks the tile and K range.
#pragma once

#include "fp8gemm/kernel/gemm_config.hpp"

namespace fp8gemm {

template <class Config>
struct GemmBlock {
  static_assert(!IsWgmmaPolicy<typename Config::Policy>::value,
                "GemmBlock is not offered for WgmmaTilePolicy: the persistent warp-specialized "
                "kernel owns its CTA (use Gemm, or a portable policy inside your own kernel)");
  using Kernel = typename Config::Kernel;
  using Params = typename Config::Params;
  using SharedStorage = typename Kernel::SharedStorage;
  static constexpr int kThreads = Kernel::kThreads;    // launch with this many threads per block
  static constexpr int kWaveSize = Kernel::kWaveSize;  // 64 on CDNA, 32 on NVIDIA
  static constexpr int kSharedBytes = Kernel::kSharedBytes;  // dynamic LDS for SharedStorage

  /// C[tile] = epilogue(A[tile_m rows] * B[tile_n cols]) over K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE static void run_tile(Params const& p, int tile_m, int tile_n, int k_tile_begin,
                                      int k_tile_end, SharedStorage& lds) {
    Kernel::run_tile(p, tile_m, tile_n, k_tile_begin, k_tile_end, lds);
  }
};

}  // namespace fp8gemm
