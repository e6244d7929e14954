// SPDX-License-Identifier: MIT
/// Which workgroup computes which output tile and K range (kernel layer): one workgroup per output
/// tile in grouped (L2-friendly) order, K optionally split over grid.y. Its contract: Arguments,
/// can_implement, Params, grid, work.
#pragma once

#include <cstdint>
#include <string>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/status.hpp"

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

/// XCD-aware order: the hardware dispatches workgroup b to die (XCD) b % xcds, each die with its
/// own L2. Renumbering so that die x runs a contiguous run of the grouped order (x's workgroups
/// x, x + xcds, ... become x * q + min(x, r), +1, ..., with blocks = q * xcds + r) makes the tiles
/// resident on one die share A rows and B columns. A bijection of [0, blocks); xcds = 1 is the
/// identity.
FP8GEMM_HOST_DEVICE int xcd_contiguous(int block, int blocks, int xcds) {
  int const q = blocks / xcds, r = blocks % xcds;
  int const xcd = block % xcds, local = block / xcds;
  return xcd * q + (xcd < r ? xcd : r) + local;
}

/// grid = (tiles_m * tiles_n, split_k): block x is the tile in grouped order (behind the XCD-aware
/// renumbering on multi-die targets), block y the K split.
template <class Policy>
struct GroupedTileScheduler {
  using Arch = typename Policy::Arch;

  struct Arguments {
    int m = 0, n = 0, k = 0;
    int split_k = 1;  // > 1: K split over grid.y
    int group_m = 0;  // tile rows per group; 0: kDefaultGroupM
  };
  /// group_m when the caller leaves it at 0 (not measured against other heights on any target).
  static constexpr int kDefaultGroupM = 8;
  struct Params {
    int tiles_m = 1, tiles_n = 1;
    int group_m = 8;
    int split_k = 1;
    int k_tiles = 1;            // ceil(K / BlockK)
    int k_tiles_per_split = 1;  // ceil(k_tiles / split_k)
  };
  /// The K-tile range and output tile of one workgroup; split is its index along K.
  struct WorkTile {
    int m, n, k_tile_begin, k_tile_end, split;
  };

  static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    std::int64_t const tiles = ((args.m + std::int64_t(Policy::kBlockM) - 1) / Policy::kBlockM) *
                               ((args.n + std::int64_t(Policy::kBlockN) - 1) / Policy::kBlockN);
    std::int64_t const max_tiles = Arch::max_blocks_x(Policy::kThreads);
    if (tiles > max_tiles)
      return fail(StatusCode::kErrorInvalidSize, "M x N needs " + std::to_string(tiles) +
                                                     " output tiles (one workgroup each); a " +
                                                     Arch::kName + " grid holds at most " +
                                                     std::to_string(max_tiles) + " workgroups of " +
                                                     std::to_string(Policy::kThreads) + " threads");
    int const k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    if (args.split_k < 1 || args.split_k > k_tiles || args.split_k > Arch::kMaxBlocksY)
      return fail(StatusCode::kErrorInvalidArgument,
                  "split_k must be in [1, min(ceil(K / BlockK) = ceil(" + std::to_string(args.k) +
                      " / " + std::to_string(Policy::kBlockK) + ") = " + std::to_string(k_tiles) +
                      ", " + std::to_string(Arch::kMaxBlocksY) + " (grid.y))]; got " +
                      std::to_string(args.split_k));
    if (args.group_m < 0)
      return fail(
          StatusCode::kErrorInvalidArgument,
          "group_m must be >= 0 (0: the scheduler's choice); got " + std::to_string(args.group_m));
    return Status::success();
  }

  static Params to_params(Arguments const& args) {
    Params p;
    p.tiles_m = (args.m + Policy::kBlockM - 1) / Policy::kBlockM;
    p.tiles_n = (args.n + Policy::kBlockN - 1) / Policy::kBlockN;
    p.group_m = args.group_m > 0 ? args.group_m : kDefaultGroupM;
    p.split_k = args.split_k;
    p.k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    p.k_tiles_per_split = (p.k_tiles + args.split_k - 1) / args.split_k;
    return p;
  }

  static int grid_x(Params const& p) { return p.tiles_m * p.tiles_n; }
  static int grid_y(Params const& p) { return p.split_k; }

  /// This workgroup's tile and K range.
  FP8GEMM_DEVICE static WorkTile work(Params const& p) {
    // The dies take workgroups by their flat id (x + y * grid_x); with split_k > 1 that is only x
    // mod xcds when grid_x is a multiple of it, so the renumbering applies to unsplit grids.
    int const xcds = p.split_k == 1 ? Arch::kXcds : 1;
    int const linear = xcd_contiguous(arch::block_idx_x(), p.tiles_m * p.tiles_n, xcds);
    TileCoord const t = grouped_tile(linear, p.tiles_m, p.tiles_n, p.group_m);
    int const split = arch::block_idx_y();
    // a split past K's end is empty: [k_tiles, k_tiles), never a reversed range
    int const begin =
        split * p.k_tiles_per_split < p.k_tiles ? split * p.k_tiles_per_split : p.k_tiles;
    int const end =
        begin + p.k_tiles_per_split < p.k_tiles ? begin + p.k_tiles_per_split : p.k_tiles;
    return {t.m, t.n, begin, end, split};
  }
};

/// Persistent schedule (one CTA per SM): work item w = (output tile w / split_k in grouped order,
/// K split w % split_k); grid = min(SMs, items); CTA b takes items b, b + grid, b + 2 grid, ...,
/// so each wave of `grid` concurrent items walks group_m tile rows down the tile columns together
/// (L2 reuse), a tile's K splits side by side. split_k > 1 (decode: fewer tiles than SMs) writes
/// FP32 partial sums to the workspace, reduced by a second kernel (device/gemm.hpp). Its contract:
/// Arguments, can_implement, initialize (queries the SM count), Params, grid_x/grid_y, items, work.
///
/// 2-CTA clusters (Policy::kMulticast kA / kB): an item is a tile *pair* (and a K split): kA pairs
/// tiles (m, 2j) and (m, 2j + 1) of one tile row, kB tiles (2i, n) and (2i + 1, n) of one tile
/// column; cluster rank r computes the pair's tile r. The pairs are walked in grouped order over
/// the pair grid (tiles_m x ceil(tiles_n / 2) for kA, ceil(tiles_m / 2) x tiles_n for kB; kB
/// groups group_m / 2 pair rows, at least 1, i.e. about group_m tile rows); cluster c takes items
/// c, c + clusters, ...; both tiles of a pair have the same K split, so both CTAs walk the same
/// k-blocks through their rings. An odd tile count along the paired dimension leaves the last
/// pairs' rank-1 tile past the matrix: that CTA still loads and multiplies (its partner's tile,
/// so every copy stays inside the matrix) and stores nothing (WorkTile::store = false).
/// grid = 2 x min(SMs / 2, items).
template <class Policy>
struct PersistentTileScheduler {
  using Arch = typename Policy::Arch;
  static constexpr int kClusterSize = Policy::kClusterSize;
  static constexpr bool kPairAlongN = Policy::kMulticastA;  // kA: a pair shares m, n differs
  static constexpr bool kPairAlongM = Policy::kMulticastB;  // kB: a pair shares n, m differs

  struct Arguments {
    int m = 0, n = 0, k = 0;
    int split_k = 1;   // > 1: each tile's K range split over that many work items
    int group_m = 0;   // tile rows per group; 0: auto_group_m (the squarest wave)
    int sm_count = 0;  // > 0: at most that many CTAs (SMs); 0: the device's SM count
  };
  struct Params {
    int tiles_m = 1, tiles_n = 1;
    int group_m = 8;
    int grid = 1;  // CTAs launched: min(SMs, items); clusters: 2 x min(SMs / 2, items)
    int split_k = 1;
    int k_tiles = 1;            // ceil(K / BlockK)
    int k_tiles_per_split = 1;  // ceil(k_tiles / split_k)
  };
  /// One work item: its output tile, K-tile range [k_tile_begin, k_tile_end) (empty, begin = end
  /// = k_tiles, for a split past the end of K when k_tiles is not a multiple of
  /// k_tiles_per_split) and split index. store = false: a cluster pair's tile past the matrix,
  /// (m, n) then name its partner's tile (loaded and multiplied, never stored).
  struct WorkTile {
    int m, n, k_tile_begin, k_tile_end, split;
    bool store = true;
  };

  static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    int const k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    if (args.split_k < 1 || args.split_k > k_tiles)
      return fail(StatusCode::kErrorInvalidArgument,
                  "split_k must be in [1, ceil(K / BlockK) = ceil(" + std::to_string(args.k) +
                      " / " + std::to_string(Policy::kBlockK) + ") = " + std::to_string(k_tiles) +
                      "]; got " + std::to_string(args.split_k));
    if (args.group_m < 0)
      return fail(
          StatusCode::kErrorInvalidArgument,
          "group_m must be >= 0 (0: the scheduler's choice); got " + std::to_string(args.group_m));
    if (args.sm_count < 0)
      return fail(StatusCode::kErrorInvalidArgument,
                  "sm_count must be >= 0 (0: every SM); got " + std::to_string(args.sm_count));
    std::int64_t const items = ((args.m + std::int64_t(Policy::kBlockM) - 1) / Policy::kBlockM) *
                               ((args.n + std::int64_t(Policy::kBlockN) - 1) / Policy::kBlockN) *
                               args.split_k;  // an upper bound of the pair count with clusters
    // work items are int, and a CTA's next one is item + grid (grid <= 2^16)
    constexpr std::int64_t kMaxItems = INT32_MAX - 65536;
    if (items > kMaxItems)
      return fail(StatusCode::kErrorInvalidSize,
                  "M x N x split_k needs " + std::to_string(items) +
                      " work items (output tiles x K splits); the persistent scheduler counts "
                      "them in int (at most 2^31 - 2^16 - 1)");
    return Status::success();
  }

  /// Params, with the grid sized by the current device's SM count.
  static Status initialize(Arguments const& args, Params& p) {
    p.tiles_m = (args.m + Policy::kBlockM - 1) / Policy::kBlockM;
    p.tiles_n = (args.n + Policy::kBlockN - 1) / Policy::kBlockN;
    p.split_k = args.split_k;
    p.k_tiles = (args.k + Policy::kBlockK - 1) / Policy::kBlockK;
    p.k_tiles_per_split = (p.k_tiles + args.split_k - 1) / args.split_k;
    int sms = 1;
    FP8GEMM_RETURN_IF_ERROR(arch::multiprocessor_count(&sms));
    if (args.sm_count > 0 && args.sm_count < sms) sms = args.sm_count;
    p.grid = grid_for(items(p), sms);
    p.group_m = group_m_for(args.group_m, p.grid, p.split_k);
    return Status::success();
  }

  /// group_m for `tiles` output tiles in flight at once (the grid's CTAs, over the K splits).
  /// A wave of W tiles walking g tile rows down W / g tile columns reads, per k-block,
  ///   bytes(g) = (g BlockM + (W / g) BlockN) BlockK     (A's rows, B's columns),
  /// least near g = sqrt(W BlockN / BlockM): the wave as square as the tile shape allows. This is
  /// the whole g that minimizes it (bytes(g + 1) >= bytes(g) once g (g + 1) BlockM >= W BlockN; a
  /// tie takes the smaller); grouped_tile clamps it to tiles_m. H200, 132 SMs (bench/NOTES.md,
  /// 2026-12-02): 128 x 256 tiles give 16, measured 0.3-2.3 % faster than 8 at the large
  /// per-tensor, GELU and Blockwise shapes, equal at 4096^3, at 8192^3 within 1 % either way
  /// interleaved and 1 % faster sustained; 128 x 128 tiles give 11 (not measured; 12 measured
  /// 1.2 % faster than 8 at 8192^3).
  FP8GEMM_HOST_DEVICE static constexpr int auto_group_m(int tiles) {
    std::int64_t const wave = std::int64_t(tiles > 1 ? tiles : 1) * Policy::kBlockN;
    int g = 1;
    while (std::int64_t(g) * (g + 1) * Policy::kBlockM < wave) ++g;
    return g;
  }

  /// group_m as the scheduler uses it: `requested` when >= 1, else auto_group_m of the tiles in
  /// flight (`grid` CTAs, split_k of them per tile).
  static int group_m_for(int requested, int grid, int split_k) {
    return requested > 0 ? requested : auto_group_m(grid / split_k);
  }

  /// At most `clusters` clusters resident at once (arch::max_active_clusters): the grid shrinks
  /// to that many, the items unchanged (each cluster then takes more), and an automatic group_m
  /// follows the smaller wave.
  static void limit_clusters(Arguments const& args, Params& p, int clusters) {
    if (p.grid > clusters * kClusterSize) p.grid = clusters * kClusterSize;
    p.group_m = group_m_for(args.group_m, p.grid, p.split_k);
  }

  /// CTAs for `n_items` items on `sms` SMs: one per item up to the SM count; with clusters
  /// kClusterSize per item up to the SMs rounded down to whole clusters (at least one cluster).
  FP8GEMM_HOST_DEVICE static int grid_for(int n_items, int sms) {
    int const clusters = sms / kClusterSize > 0 ? sms / kClusterSize : 1;
    return kClusterSize * (n_items < clusters ? n_items : clusters);
  }

  static int grid_x(Params const& p) { return p.grid; }
  static int grid_y(Params const&) { return 1; }

  /// Work items: tiles x splits; with clusters tile pairs x splits.
  FP8GEMM_HOST_DEVICE static int items(Params const& p) {
    return pairs_m(p) * pairs_n(p) * p.split_k;
  }
  /// The grid of work units along M and N: tiles, or pairs along the paired dimension.
  FP8GEMM_HOST_DEVICE static int pairs_m(Params const& p) {
    return kPairAlongM ? (p.tiles_m + 1) / 2 : p.tiles_m;
  }
  FP8GEMM_HOST_DEVICE static int pairs_n(Params const& p) {
    return kPairAlongN ? (p.tiles_n + 1) / 2 : p.tiles_n;
  }

  /// Work item `linear` for cluster rank `rank` (0 without clusters): unit linear / split_k in
  /// grouped order (a tile, or a pair whose tile `rank` this is), split linear % split_k.
  FP8GEMM_HOST_DEVICE static WorkTile work(Params const& p, int linear, int rank = 0) {
    int const split = linear % p.split_k;
    int const group = kPairAlongM ? (p.group_m / 2 > 0 ? p.group_m / 2 : 1) : p.group_m;
    TileCoord t = grouped_tile(linear / p.split_k, pairs_m(p), pairs_n(p), group);
    bool store = true;
    if constexpr (kPairAlongN) {
      t.n = 2 * t.n + rank;
      // past the matrix (odd tiles_n): the partner's tile (rank 0's), never stored
      if (t.n >= p.tiles_n) t.n -= rank, store = false;
    } else if constexpr (kPairAlongM) {
      t.m = 2 * t.m + rank;
      if (t.m >= p.tiles_m) t.m -= rank, store = false;
    }
    // a split past K's end is empty: [k_tiles, k_tiles), never a reversed range
    int const begin =
        split * p.k_tiles_per_split < p.k_tiles ? split * p.k_tiles_per_split : p.k_tiles;
    int const end =
        begin + p.k_tiles_per_split < p.k_tiles ? begin + p.k_tiles_per_split : p.k_tiles;
    return {t.m, t.n, begin, end, split, store};
  }
};

}  // namespace fp8gemm
