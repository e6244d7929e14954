// SPDX-License-Identifier: MIT
/// Tile schedulers (kernel layer): which output tiles and K ranges a workgroup computes, and in
/// which order. A scheduler owns the iteration: the kernel asks it for work until it says done,
///
///   TileScheduler scheduler(params);
///   while (scheduler.more()) { WorkTile const w = scheduler.next(); mainloop; epilogue; }
///
/// and needs nothing else to find its tile. Contract: Arguments (the options), can_implement and
/// to_params or initialize (both of the ProblemShape and the Arguments), Params, grid_x / grid_y,
/// kOneTilePerWorkgroup, and on the device a scheduler built from Params with more() and next().
/// A grouped scheduler (several problems, one launch) plugs in with the same contract and fills
/// WorkTile::group.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/raster_band.hpp"
#include "fp8gemm/kernel/stream_k.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

/// One unit of work: the output tile at (m0, n0) (its tile indices m, n) of problem `group`, over
/// K tiles [k_tile_begin, k_tile_end), the split-th part of K. store = false: a cluster pair's
/// tile past the matrix, which is loaded and multiplied (its partner's tile) but not stored.
/// valid = false: next() was asked past the end of the walk (more() said false). Stream-K
/// (stream_k.hpp): a segment that does not reach the tile's last k-block leaves its FP32 partial
/// sum in slot partial_slot (>= 0) instead of storing C; a final segment that does not start at
/// k-block 0 first adds slots fixup_begin, fixup_begin + fixup_stride, ... below fixup_end, in
/// order. A grouped scheduler's tile: m0, n0 are in the group's C, (load_m0, load_n0) where the
/// mainloop reads it in the flattened operands, bounds the group's outputs, offsets where the
/// group's C and scales are.
struct WorkTile {
  int group = 0;
  int m = 0, n = 0;              // tile indices
  int m0 = 0, n0 = 0;            // the tile's first row and column of C
  int load_m0 = 0, load_n0 = 0;  // grouped: its first row of flattened A and of flattened B
  OutputBounds bounds;           // grouped: the group's rows and N
  GroupOffsets offsets;          // grouped
  int k_tile_begin = 0, k_tile_end = 0;
  int split = 0;
  int partial_slot = -1;               // stream-K: >= 0, this segment's partial sum goes there
  int fixup_begin = 0, fixup_end = 0;  // stream-K: the slots added before the store,
  int fixup_stride = 1;                // every fixup_stride-th from fixup_begin
  bool store = true;
  bool valid = false;
  FP8GEMM_HOST_DEVICE explicit operator bool() const { return valid; }
};

/// Whether a tile scheduler walks a grouped problem (kGrouped): its WorkTiles carry load
/// coordinates, bounds and offsets, which the kernels then use.
template <class S, class = void>
struct is_grouped_scheduler : std::false_type {};
template <class S>
struct is_grouped_scheduler<S, std::void_t<decltype(S::kGrouped)>>
    : std::bool_constant<S::kGrouped> {};

/// What a grouped scheduler's producer hands the consumers per tile (S::Placed); int otherwise.
template <class S, class = void>
struct grouped_placement {
  using type = int;
};
template <class S>
struct grouped_placement<S, std::void_t<typename S::Placed>> {
  using type = typename S::Placed;
};

/// The work of output tile t (tile indices) and K split `split`, with k_tiles K tiles in parts
/// of per_split: K tiles [split · per_split, + per_split) clipped to K; a split past K's end is
/// empty, [k_tiles, k_tiles), never reversed.
template <class Policy>
FP8GEMM_HOST_DEVICE WorkTile work_tile(int tile_m, int tile_n, int split, int k_tiles,
                                       int per_split, bool store = true) {
  WorkTile w;
  w.m = tile_m, w.n = tile_n;
  w.m0 = tile_m * Policy::kBlockM, w.n0 = tile_n * Policy::kBlockN;
  w.k_tile_begin = split * per_split < k_tiles ? split * per_split : k_tiles;
  w.k_tile_end = w.k_tile_begin + per_split < k_tiles ? w.k_tile_begin + per_split : k_tiles;
  w.split = split;
  w.store = store;
  w.valid = true;
  return w;
}

/// Banded raster order (L2-friendly): consecutive tiles walk a band of `band_m` tile rows down
/// one tile column before moving right, so a wave of workgroups shares A rows and B columns in
/// L2. band_m >= 1; a band taller than the matrix is one band (clamped, so band_m x tiles_n <=
/// tiles_m x tiles_n stays in int for any band_m).
struct TileCoord {
  int m, n;
};
FP8GEMM_HOST_DEVICE TileCoord banded_tile(int linear, int tiles_m, int tiles_n, int band_m) {
  band_m = band_m < tiles_m ? band_m : tiles_m;
  int const per_band = band_m * tiles_n;
  int const band = linear / per_band;
  int const first_m = band * band_m;
  int const rows = tiles_m - first_m < band_m ? tiles_m - first_m : band_m;
  int const in_band = linear % per_band;
  return {first_m + in_band % rows, in_band / rows};
}

/// XCD-aware order: the hardware dispatches workgroup b to die (XCD) b % xcds, each die with its
/// own L2. Renumbering so that die x runs a contiguous run of the banded order (x's workgroups
/// x, x + xcds, ... become x * q + min(x, r), +1, ..., with blocks = q * xcds + r) makes the tiles
/// resident on one die share A rows and B columns. A bijection of [0, blocks); xcds = 1 is the
/// identity.
FP8GEMM_HOST_DEVICE int xcd_contiguous(int block, int blocks, int xcds) {
  int const q = blocks / xcds, r = blocks % xcds;
  int const xcd = block % xcds, local = block / xcds;
  return xcd * q + (xcd < r ? xcd : r) + local;
}

/// One workgroup per output tile and K split: grid = (tiles_m * tiles_n, split_k); block x is
/// the tile in banded raster order (behind the XCD-aware renumbering on multi-die targets),
/// block y the K split: its walk is that one tile.
template <class Policy>
struct RasterTileScheduler {
  using Arch = typename Policy::Arch;
  static constexpr bool kOneTilePerWorkgroup = true;  // next() is always done

  struct Arguments {
    int split_k = 1;  // > 1: K split over grid.y
    int band_m = 0;   // tile rows per band of the raster order; 0: kDefaultBandM
  };
  /// band_m when the caller leaves it at 0 (not measured against other heights on any target).
  static constexpr int kDefaultBandM = 8;
  struct Params {
    int tiles_m = 1, tiles_n = 1;
    int band_m = kDefaultBandM;
    int split_k = 1;
    int k_tiles = 1;            // ceil(K / BlockK)
    int k_tiles_per_split = 1;  // ceil(k_tiles / split_k)
  };

  static Status can_implement(ProblemShape const& problem, Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    std::int64_t const tiles =
        problem.tiles_m<Policy::kBlockM>() * problem.tiles_n<Policy::kBlockN>();
    std::int64_t const max_tiles = Arch::max_blocks_x(Policy::kThreads);
    if (tiles > max_tiles)
      return fail(StatusCode::kErrorInvalidSize, "M x N needs " + std::to_string(tiles) +
                                                     " output tiles (one workgroup each); a " +
                                                     Arch::kName + " grid holds at most " +
                                                     std::to_string(max_tiles) + " workgroups of " +
                                                     std::to_string(Policy::kThreads) + " threads");
    int const k_tiles = problem.k_tiles<Policy::kBlockK>();
    if (args.split_k < 1 || args.split_k > k_tiles || args.split_k > Arch::kMaxBlocksY)
      return fail(StatusCode::kErrorInvalidArgument,
                  "split_k must be in [1, min(ceil(K / BlockK) = ceil(" +
                      std::to_string(problem.k) + " / " + std::to_string(Policy::kBlockK) +
                      ") = " + std::to_string(k_tiles) + ", " + std::to_string(Arch::kMaxBlocksY) +
                      " (grid.y))]; got " + std::to_string(args.split_k));
    if (args.band_m < 0)
      return fail(
          StatusCode::kErrorInvalidArgument,
          "band_m must be >= 0 (0: the scheduler's choice); got " + std::to_string(args.band_m));
    return Status::success();
  }

  static Params to_params(ProblemShape const& problem, Arguments const& args) {
    Params p;
    p.tiles_m = static_cast<int>(problem.tiles_m<Policy::kBlockM>());
    p.tiles_n = static_cast<int>(problem.tiles_n<Policy::kBlockN>());
    p.band_m = args.band_m > 0 ? args.band_m : kDefaultBandM;
    p.split_k = args.split_k;
    p.k_tiles = problem.k_tiles<Policy::kBlockK>();
    p.k_tiles_per_split = (p.k_tiles + args.split_k - 1) / args.split_k;
    return p;
  }

  static int grid_x(Params const& p) { return p.tiles_m * p.tiles_n; }
  static int grid_y(Params const& p) { return p.split_k; }

  /// The output tile and K range of block (x, y) = (tile in launch order, split).
  FP8GEMM_HOST_DEVICE static WorkTile work(Params const& p, int block_x, int split) {
    // The dies take workgroups by their flat id (x + y * grid_x); with split_k > 1 that is only x
    // mod xcds when grid_x is a multiple of it, so the renumbering applies to unsplit grids.
    int const xcds = p.split_k == 1 ? Arch::kXcds : 1;
    int const linear = xcd_contiguous(block_x, p.tiles_m * p.tiles_n, xcds);
    TileCoord const t = banded_tile(linear, p.tiles_m, p.tiles_n, p.band_m);
    return work_tile<Policy>(t.m, t.n, split, p.k_tiles, p.k_tiles_per_split);
  }

  /// This workgroup's walk: its one tile, then done.
  FP8GEMM_DEVICE explicit RasterTileScheduler(Params const& p) : params_(p) {}
  FP8GEMM_DEVICE bool more() const { return !taken_; }
  FP8GEMM_DEVICE WorkTile next() {
    if (taken_) return WorkTile{};
    taken_ = true;
    return work(params_, arch::block_idx_x(), arch::block_idx_y());
  }

 private:
  Params params_;
  bool taken_ = false;
};

/// Persistent schedule (one CTA per SM): work item w = (output tile w / split_k in banded order,
/// K split w % split_k); grid = min(SMs, items); CTA b takes items b, b + grid, b + 2 grid, ...,
/// so each wave of `grid` concurrent items walks band_m tile rows down the tile columns together
/// (L2 reuse), a tile's K splits side by side. split_k > 1 (decode: fewer tiles than SMs) writes
/// FP32 partial sums to the workspace, reduced by a second kernel (device/gemm.hpp). Contract:
/// Arguments, can_implement, initialize (queries the SM count), Params, grid_x/grid_y, items,
/// work, and the device walk more() / next().
///
/// 2-CTA clusters (Policy::kMulticast kA / kB): an item is a tile *pair* (and a K split): kA pairs
/// tiles (m, 2j) and (m, 2j + 1) of one tile row, kB tiles (2i, n) and (2i + 1, n) of one tile
/// column; cluster rank r computes the pair's tile r. The pairs are walked in banded order over
/// the pair grid (tiles_m x ceil(tiles_n / 2) for kA, ceil(tiles_m / 2) x tiles_n for kB; kB
/// bands band_m / 2 pair rows, at least 1, i.e. about band_m tile rows); cluster c takes items
/// c, c + clusters, ...; both tiles of a pair have the same K split, so both CTAs walk the same
/// k-blocks through their rings. An odd tile count along the paired dimension leaves the last
/// pairs' rank-1 tile past the matrix: that CTA still loads and multiplies (its partner's tile,
/// so every copy stays inside the matrix) and stores nothing (WorkTile::store = false).
/// grid = 2 x min(SMs / 2, items).
///
/// Stream-K (a StreamK<P> policy, split_k = 1): CTA c first takes the whole tiles c, c + grid, ...
/// below the cut ones (stream_k_tiles), then walks the segments of its share of the cut tiles'
/// k-blocks last to first (stream_k.hpp, tiles in the banded order above); grid = min(SMs, tiles x
/// k-blocks), so every CTA has at least one k-block and all are resident. Column groups: where
/// the banded order is one band of R = tiles_m rows (2 <= R <= kStreamKMaxGroup, R dividing the
/// grid), the cut is made over tile columns instead of tiles, on grid / R group CTAs, and CTA c
/// = g R + r computes row r of each column segment of group CTA g: the R CTAs of a group walk
/// the same k-blocks of one column at once, so its B tile comes from DRAM once for all of them
/// (cut tile by tile, the rows of a column run at different k-blocks, and a B larger than L2 is
/// read again for each: docs/performance.md#sm90-stream-k).
template <class Policy>
struct PersistentTileScheduler {
  using Arch = typename Policy::Arch;
  static constexpr int kClusterSize = Policy::kClusterSize;
  static constexpr bool kPairAlongN = Policy::kMulticastA;  // kA: a pair shares m, n differs
  static constexpr bool kPairAlongM = Policy::kMulticastB;  // kB: a pair shares n, m differs
  static constexpr bool kOneTilePerWorkgroup = false;
  static constexpr bool kStreamK = IsStreamK<Policy>::value;
  static_assert(!kStreamK || (kClusterSize == 1 && !Policy::kPingPong),
                "StreamK<P>: cooperative unclustered policies only (a multicast policy's two CTAs "
                "walk the same tile pairs, ping-pong consumers alternate whole tiles; stream-K's "
                "CTAs walk different K ranges)");

  struct Arguments {
    int split_k = 1;   // > 1: each tile's K range split over that many work items
    int band_m = 0;    // tile rows per band of the raster order; 0: auto_band_m
    int sm_count = 0;  // > 0: at most that many CTAs (SMs); 0: the device's SM count
  };
  struct Params {
    int tiles_m = 1, tiles_n = 1;
    int band_m = 8;
    int grid = 1;  // CTAs launched: min(SMs, items); clusters: 2 x min(SMs / 2, items)
    int split_k = 1;
    int k_tiles = 1;            // ceil(K / BlockK)
    int k_tiles_per_split = 1;  // ceil(k_tiles / split_k)
    int whole_tiles = 0;        // stream-K: the tiles before the cut ones, run whole
    int stream_k_group = 1;     // stream-K: R, the CTAs (tile rows) of a column group
  };
  /// Stream-K's largest column group (tile rows cut alike); above it, tile by tile.
  static constexpr int kStreamKMaxGroup = 8;

  static Status can_implement(ProblemShape const& problem, Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    int const k_tiles = problem.k_tiles<Policy::kBlockK>();
    if (args.split_k < 1 || args.split_k > k_tiles)
      return fail(StatusCode::kErrorInvalidArgument,
                  "split_k must be in [1, ceil(K / BlockK) = ceil(" + std::to_string(problem.k) +
                      " / " + std::to_string(Policy::kBlockK) + ") = " + std::to_string(k_tiles) +
                      "]; got " + std::to_string(args.split_k));
    if (args.band_m < 0)
      return fail(
          StatusCode::kErrorInvalidArgument,
          "band_m must be >= 0 (0: the scheduler's choice); got " + std::to_string(args.band_m));
    if (args.sm_count < 0)
      return fail(StatusCode::kErrorInvalidArgument,
                  "sm_count must be >= 0 (0: every SM); got " + std::to_string(args.sm_count));
    if constexpr (kStreamK) {
      if (args.split_k != 1)
        return fail(StatusCode::kErrorInvalidArgument,
                    "StreamK<P> cuts every tile's K itself: split_k must be 1; got " +
                        std::to_string(args.split_k));
      if (problem.tiles_m<Policy::kBlockM>() * problem.tiles_n<Policy::kBlockN>() *
              problem.k_tiles<Policy::kBlockK>() >
          INT32_MAX)
        return fail(StatusCode::kErrorInvalidSize,
                    "StreamK<P>: tiles x k-blocks must fit an int (the walk's tile index)");
    }
    std::int64_t const items = problem.tiles_m<Policy::kBlockM>() *
                               problem.tiles_n<Policy::kBlockN>() *
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
  static Status initialize(ProblemShape const& problem, Arguments const& args, Params& p) {
    p.tiles_m = static_cast<int>(problem.tiles_m<Policy::kBlockM>());
    p.tiles_n = static_cast<int>(problem.tiles_n<Policy::kBlockN>());
    p.split_k = args.split_k;
    p.k_tiles = problem.k_tiles<Policy::kBlockK>();
    p.k_tiles_per_split = (p.k_tiles + args.split_k - 1) / args.split_k;
    int sms = 1;
    FP8GEMM_RETURN_IF_ERROR(usable_sms(args, &sms));
    if constexpr (kStreamK) {
      stream_k_initialize(p, sms, args.band_m);
      return Status::success();
    }
    p.grid = grid_for(items(p), sms);
    p.band_m = band_m_for(args.band_m, p.grid, p.split_k);
    return Status::success();
  }

  /// The SMs the grid may use: the current device's, at most args.sm_count when that is > 0.
  static Status usable_sms(Arguments const& args, int* sms) {
    FP8GEMM_RETURN_IF_ERROR(arch::multiprocessor_count(sms));
    if (args.sm_count > 0 && args.sm_count < *sms) *sms = args.sm_count;
    return Status::success();
  }

  /// Stream-K's grid on `sms` SMs: one CTA per SM, at most one per k-block of the tiles, so that
  /// every CTA's range holds at least one (stream_k.hpp: an empty range would leave no partial).
  static int stream_k_grid(ProblemShape const& problem, int sms) {
    return stream_k_ctas(problem.tiles_m<Policy::kBlockM>() * problem.tiles_n<Policy::kBlockN>() *
                             problem.k_tiles<Policy::kBlockK>(),
                         sms);
  }
  /// min(SMs, iterations), at least 1.
  static int stream_k_ctas(std::int64_t iters, int sms) {
    return static_cast<int>(iters < sms ? (iters > 0 ? iters : 1) : sms);
  }

  /// Stream-K's grid, band, column group and whole tiles on `sms` SMs, for p's tiles and k_tiles
  /// (initialize). The units cut are tiles, or with column groups of R rows (the class comment)
  /// tile columns over grid / R group CTAs: stream_k_tiles(units, group CTAs) of them, so each
  /// group CTA's share is at least one k-block whenever the grid is the SM count.
  static void stream_k_initialize(Params& p, int sms, int band_m) {
    int const tiles = p.tiles_m * p.tiles_n;
    p.grid = stream_k_ctas(std::int64_t(tiles) * p.k_tiles, sms);
    p.band_m = band_m_for(band_m, p.grid < tiles ? p.grid : tiles, 1);
    int const r = p.tiles_m;
    bool const columns = r >= 2 && r <= kStreamKMaxGroup && p.band_m >= r && p.grid % r == 0;
    p.stream_k_group = columns ? r : 1;
    int const units = columns ? p.tiles_n : tiles;
    p.whole_tiles = tiles - stream_k_tiles(units, p.grid / p.stream_k_group) * p.stream_k_group;
  }

  /// Stream-K's cut of the cut units' k-blocks over the group CTAs (grid / R; unit 0 of the plan
  /// is the R tiles from banded tile whole_tiles on).
  FP8GEMM_HOST_DEVICE static StreamKPlan stream_k_plan(Params const& p) {
    int const r = p.stream_k_group;
    return {(p.tiles_m * p.tiles_n - p.whole_tiles) / r, p.k_tiles, p.grid / r};
  }

  /// Stream-K: CTA `cta`'s segment ending at iteration `it_end` of its group CTA's range (its walk
  /// goes last to first), as a WorkTile: its row of the unit, its own slot, and the slots of the
  /// same row in the lower group CTAs the fixup adds.
  FP8GEMM_HOST_DEVICE static WorkTile stream_k_work_before(Params const& p, int cta,
                                                           std::int64_t it_end) {
    int const r = p.stream_k_group, row = cta % r;
    StreamKSegment const seg = stream_k_segment_before(stream_k_plan(p), cta / r, it_end);
    TileCoord const t =
        banded_tile(p.whole_tiles + seg.tile * r + row, p.tiles_m, p.tiles_n, p.band_m);
    WorkTile w = work_tile<Policy>(t.m, t.n, 0, p.k_tiles, p.k_tiles);
    w.k_tile_begin = seg.kb_begin, w.k_tile_end = seg.kb_end;
    w.partial_slot = seg.final ? -1 : cta;
    w.fixup_begin = seg.fixup_begin * r + row, w.fixup_end = seg.fixup_end * r + row;
    w.fixup_stride = r;
    return w;
  }

  /// band_m for `tiles` output tiles in flight at once (the grid's CTAs, over the K splits).
  /// A wave of W tiles walking g tile rows down W / g tile columns reads, per k-block,
  ///   bytes(g) = (g BlockM + (W / g) BlockN) BlockK     (A's rows, B's columns),
  /// least near g = sqrt(W BlockN / BlockM): the wave as square as the tile shape allows. This is
  /// the whole g that minimizes it (bytes(g + 1) >= bytes(g) once g (g + 1) BlockM >= W BlockN; a
  /// tie takes the smaller); banded_tile clamps it to tiles_m. Measured:
  /// docs/performance.md#raster-band-height.
  FP8GEMM_HOST_DEVICE static constexpr int auto_band_m(int tiles) {
    return raster_band_rows(tiles, Policy::kBlockM, Policy::kBlockN);
  }

  /// band_m as the scheduler uses it: `requested` when >= 1, else auto_band_m of the tiles in
  /// flight (`grid` CTAs, split_k of them per tile).
  static int band_m_for(int requested, int grid, int split_k) {
    return requested > 0 ? requested : auto_band_m(grid / split_k);
  }

  /// At most `clusters` clusters resident at once (arch::max_active_clusters): the grid shrinks
  /// to that many, the items unchanged (each cluster then takes more), and an automatic band_m
  /// follows the smaller wave.
  static void limit_clusters(Arguments const& args, Params& p, int clusters) {
    if (p.grid > clusters * kClusterSize) p.grid = clusters * kClusterSize;
    p.band_m = band_m_for(args.band_m, p.grid, p.split_k);
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
  /// banded order (a tile, or a pair whose tile `rank` this is), split linear % split_k.
  FP8GEMM_HOST_DEVICE static WorkTile work(Params const& p, int linear, int rank = 0) {
    int const split = linear % p.split_k;
    int const band = kPairAlongM ? (p.band_m / 2 > 0 ? p.band_m / 2 : 1) : p.band_m;
    TileCoord t = banded_tile(linear / p.split_k, pairs_m(p), pairs_n(p), band);
    bool store = true;
    if constexpr (kPairAlongN) {
      t.n = 2 * t.n + rank;
      // past the matrix (odd tiles_n): the partner's tile (rank 0's), never stored
      if (t.n >= p.tiles_n) t.n -= rank, store = false;
    } else if constexpr (kPairAlongM) {
      t.m = 2 * t.m + rank;
      if (t.m >= p.tiles_m) t.m -= rank, store = false;
    }
    return work_tile<Policy>(t.m, t.n, split, p.k_tiles, p.k_tiles_per_split, store);
  }

  /// This CTA's walk: cluster c of the grid's clusters takes items c, c + clusters, ...; rank:
  /// this CTA's place in its cluster. Every thread that walks gets the same sequence. `p` stays
  /// where the kernel has it (parameter space), read per item, not copied into registers held
  /// across the main loop (docs/performance.md#persistent-walk-registers).
  /// Stream-K: CTA `first` takes the whole tiles first, first + stride, ... below whole_tiles,
  /// then walks the range of the cut units' iterations of its group CTA, first / R (rank
  /// unused).
  FP8GEMM_DEVICE PersistentTileScheduler(Params const& p, int first, int stride, int rank)
      : params_(p), items_(items(p)), next_(first), stride_(stride), rank_(rank) {
    if constexpr (kStreamK) {  // walked last to first (stream_k.hpp)
      StreamKPlan const plan = stream_k_plan(p);
      int const group_cta = first / p.stream_k_group;
      cta_ = first, begin_ = plan.begin(group_cta), it_ = plan.begin(group_cta + 1);
      items_ = p.whole_tiles;
    }
  }
  /// Whether next() has more work to give.
  FP8GEMM_DEVICE bool more() const {
    if constexpr (kStreamK)
      return next_ < items_ || it_ > begin_;
    else
      return next_ < items_;
  }
  FP8GEMM_DEVICE WorkTile next() {
    if constexpr (kStreamK) {
      if (next_ < items_) {  // a whole tile
        WorkTile const w = work(params_, next_, 0);
        next_ += stride_;
        return w;
      }
      if (it_ <= begin_) return WorkTile{};
      WorkTile const w = stream_k_work_before(params_, cta_, it_);
      it_ -= w.k_tile_end - w.k_tile_begin;
      return w;
    } else {
      if (next_ >= items_) return WorkTile{};
      WorkTile const w = work(params_, next_, rank_);
      next_ += stride_;
      return w;
    }
  }

 private:
  Params const& params_;
  int items_, next_, stride_, rank_;
  int cta_ = 0;                      // stream-K: this CTA
  std::int64_t begin_ = 0, it_ = 0;  // stream-K: the range's start; the next segment's end
};

}  // namespace fp8gemm
