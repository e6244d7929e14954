// SPDX-License-Identifier: MIT
/// GemmBlock: one output tile, mainloop + fused epilogue, for users who write their own kernels
/// (kernel layer). The caller provides the LDS (SharedStorage) and picks the tile and K range.
#pragma once

#include <cmath>
#include <cstdint>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/mainloop/lds_multistage.hpp"

namespace fp8gemm {

template <class Config>
struct GemmBlock {
  using Policy = typename Config::Policy;
  using Params = typename Config::Params;
  using Epilogue = typename Config::Epilogue;
  using Mainloop = LdsMultistageMainloop<Config>;
  using SharedStorage = fp8gemm::SharedStorage<Policy>;
  static constexpr int kThreads = Policy::kThreads;            // launch with this many threads per block
  static constexpr int kWaveSize = Policy::Arch::kWaveSize;    // 64 on CDNA, 32 on NVIDIA
  static constexpr int kSharedBytes = static_cast<int>(sizeof(SharedStorage));

  /// C[tile] = epilogue(A[tile_m rows] * B[tile_n cols]) over K-tiles [k_tile_begin, k_tile_end).
  /// All kThreads threads of the workgroup must call it (it has barriers).
  FP8GEMM_DEVICE static void run_tile(Params const& p, int tile_m, int tile_n, int k_tile_begin,
                                      int k_tile_end, SharedStorage& lds) {
    int const m0 = tile_m * Policy::kBlockM;
    int const n0 = tile_n * Policy::kBlockN;
    Accumulators<Policy> acc;
    acc.clear();
    Mainloop{}(p, m0, n0, k_tile_begin, k_tile_end, lds, acc);
    store_tile(p, m0, n0, acc);
  }

  /// out = epilogue(acc * s_a[m] * s_b[n]) for every in-bounds element this thread holds.
  FP8GEMM_DEVICE static void store_tile(Params const& p, int m0, int n0,
                                        Accumulators<Policy> const& acc) {
    ThreadCoords<Policy> const tc = ThreadCoords<Policy>::current();
    float amax = 0.0f;
FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
FP8GEMM_UNROLL
        for (int r = 0; r < Policy::Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          int const n = n0 + tc.col(j, r);
          if (m >= p.m || n >= p.n) continue;
          float const mag = finish_element(p, m, n, acc.v[i][j][r]);
          amax = (mag > amax || mag != mag) ? mag : amax;  // NaN sticks
        }
      }
    }
    if (p.epilogue.amax != nullptr) arch::atomic_max_nonnegative(p.epilogue.amax, amax);
  }

  /// out[m][n] = epilogue(acc * s_a[m] * s_b[n]), stored; returns |y| for the amax (fabsf also
  /// clears the sign of a NaN, so NaN reaches the atomic max as NaN). Used by the split-K reduction too.
  FP8GEMM_DEVICE static float finish_element(Params const& p, int m, int n, float acc) {
    float const y = Epilogue::compute(p.epilogue, Config::apply_epilogue_scales(p, m, n, acc), n);
    Epilogue::store(p.epilogue, m, n, y);
    return fabsf(y);
  }

  /// Split-K: raw FP32 partial sums of this K range into workspace[split][m][n].
  FP8GEMM_DEVICE static void run_partial(Params const& p, int tile_m, int tile_n, int split,
                                         SharedStorage& lds) {
    int const m0 = tile_m * Policy::kBlockM;
    int const n0 = tile_n * Policy::kBlockN;
    int const k_tiles = (p.k + Policy::kBlockK - 1) / Policy::kBlockK;
    int const begin = split * p.k_tiles_per_split;
    int const end = begin + p.k_tiles_per_split < k_tiles ? begin + p.k_tiles_per_split : k_tiles;
    Accumulators<Policy> acc;
    acc.clear();
    if (begin < end) Mainloop{}(p, m0, n0, begin, end, lds, acc);
    ThreadCoords<Policy> const tc = ThreadCoords<Policy>::current();
    float* out = p.workspace + std::int64_t(split) * p.m * p.n;
FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i)
FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j)
FP8GEMM_UNROLL
        for (int r = 0; r < Policy::Atom::kCRegs; ++r) {
          int const m = m0 + tc.row(i, r);
          int const n = n0 + tc.col(j, r);
          if (m < p.m && n < p.n) out[std::int64_t(m) * p.n + n] = acc.v[i][j][r];
        }
  }
};

}  // namespace fp8gemm
