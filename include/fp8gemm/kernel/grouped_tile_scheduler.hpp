// SPDX-License-Identifier: MIT
/// Grouped and batched problems (kernel layer): G GEMMs of one N and K in one launch, each group
/// with its own rows of A and C and its own B. The group sizes live on the device (never copied to
/// the host): a one-workgroup kernel (GroupCountsKernel) checks them and writes a prefix of the
/// groups' tile rows; GroupedTileScheduler walks (group, tile) work from it, with the contract of
/// the dense schedulers (tile_scheduler.hpp).
///
/// Three layouts of the groups' rows (GroupMode):
///   contiguous  A [rows, K], C [rows, N]; group g is rows [offs[g - 1], offs[g]) (offs[-1] = 0),
///               inclusive ends on the device, any alignment, empty groups allowed;
///   masked      A [G, capacity, K], C [G, capacity, N]; group g is its first masked_m[g] rows;
///   batched     A [G, M, K], C [G, M, N]; every group is M rows (nothing on the device).
/// B is [G, N, K] in every mode. The mainloop reads A and B as flattened matrices (A's rows of all
/// groups one after the other, B's likewise), so one tensor map per operand serves every group: a
/// tile reads rows past its group's end (the next group's, or zeros past the matrix), which feed
/// only outputs the epilogue does not store (OutputBounds of the group).
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/launch.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/kernel/tile_scheduler.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm {

enum class GroupMode { kContiguous, kMasked, kBatched };

inline char const* group_mode_name(GroupMode m) {
  return m == GroupMode::kContiguous ? "contiguous"
         : m == GroupMode::kMasked   ? "masked"
                                     : "batched";
}

/// What the device reads to find a group's rows (GroupedGemm fills it from its Arguments).
struct GroupLayout {
  GroupMode mode = GroupMode::kBatched;
  int groups = 1;
  int m = 0;  // contiguous: rows of A and C; masked: capacity per group; batched: M
  int n = 0;
  int const* offs = nullptr;        // contiguous: [groups] inclusive ends of the groups' rows
  int const* masked_m = nullptr;    // masked: [groups] rows per group, each <= capacity
  int a_group_rows = 0;             // masked / batched: rows of flattened A from group to group
  int b_group_rows = 0;             // rows of flattened B from group to group (>= N)
  std::int64_t c_group_stride = 0;  // masked / batched: elements of C from group to group
  std::int64_t ldc = 0;             // contiguous: C's row stride (a group's C starts at its row)
  int c_group_rows = 0;  // masked / batched: c_group_stride / ldc when whole rows, else 0
  int c_rows = 0;        // rows of flattened C (0: groups not whole rows apart; no TMA store)
  bool a_tensor_per_group = false;  // per-tensor scales: one A scale per group (else one shared)
  /// contiguous / masked: [groups + 1] prefix of the groups' tile rows (ceil(rows / BlockM)),
  /// written by GroupCountsKernel; entry `groups` is the total (0 when a count was bad).
  int* tile_rows = nullptr;
};

/// The status words GroupCountsKernel writes after the prefix: {code, group, value, limit}.
enum class GroupCountError : int {
  kNone = 0,
  kEndBeforeStart = 1,   // contiguous: offs[g] < offs[g - 1] (or < 0 at g = 0)
  kEndPastRows = 2,      // contiguous: offs[g] > rows of A and C
  kNegativeRows = 3,     // masked: masked_m[g] < 0
  kRowsPastCapacity = 4  // masked: masked_m[g] > capacity
};
inline constexpr int kGroupStatusWords = 4;

/// Group g's rows and its first row (of A's rows for contiguous, of its own group otherwise 0),
/// and the check GroupCountsKernel applies: kNone, or what is wrong with g's count.
FP8GEMM_HOST_DEVICE GroupCountError group_rows(GroupLayout const& l, int g, int* rows, int* first,
                                               int* value = nullptr, int* limit = nullptr) {
  *first = 0;
  if (l.mode == GroupMode::kBatched) {
    *rows = l.m;
    return GroupCountError::kNone;
  }
  if (l.mode == GroupMode::kMasked) {
    int const r = l.masked_m[g];
    if (value) *value = r;
    if (limit) *limit = l.m;
    *rows = r < 0 || r > l.m ? 0 : r;
    return r < 0     ? GroupCountError::kNegativeRows
           : r > l.m ? GroupCountError::kRowsPastCapacity
                     : GroupCountError::kNone;
  }
  int const begin = g > 0 ? l.offs[g - 1] : 0, end = l.offs[g];
  *first = begin;
  if (value) *value = end;
  if (limit) *limit = end < begin ? begin : l.m;
  *rows = end < begin || end > l.m ? 0 : static_cast<int>(std::int64_t(end) - begin);
  return end < begin ? GroupCountError::kEndBeforeStart
         : end > l.m ? GroupCountError::kEndPastRows
                     : GroupCountError::kNone;
}

/// One workgroup: checks every group's count and writes l.tile_rows[0 .. groups] (the exclusive
/// prefix of ceil(rows_g / BlockM), then the total) and the status words at status[0 .. 3]. A bad
/// count writes a zero prefix (no tile of any group runs, nothing is read or written) and the
/// first bad group into the status. Thread t takes groups [t · per, (t + 1) · per).
template <class ArchT, int BlockM>
struct GroupCountsKernel {
  using Arch = ArchT;
  static constexpr int kThreads = 256;
  static constexpr int kWaveSize = Arch::kWaveSize;
  struct Shared {
    int sum[kThreads];  // tile rows of thread t's groups, then their exclusive prefix
    int bad[kThreads];  // thread t's first bad group, INT_MAX if none
  };
  static constexpr int kSharedBytes = static_cast<int>(sizeof(Shared));
  struct Params {
    GroupLayout layout;
    int* status = nullptr;  // kGroupStatusWords ints
  };

  FP8GEMM_DEVICE static void run(Params const& p, void* shared) {
    // the GEMM behind it may start its CTAs now; they wait (grid_dependency_wait) for this grid to
    // complete before reading the prefix (Hopper's programmatic launch; elsewhere stream order)
    if constexpr (std::is_same_v<Arch, arch::Sm90a>) arch::allow_dependent_launch();
    auto& s = *static_cast<Shared*>(shared);
    GroupLayout const& l = p.layout;
    int const t = arch::thread_idx();
    int const per = (l.groups + kThreads - 1) / kThreads;
    int const begin = t * per < l.groups ? t * per : l.groups;
    int const end = begin + per < l.groups ? begin + per : l.groups;
    int sum = 0, bad = INT_MAX;
    for (int g = begin; g < end; ++g) {
      int rows = 0, first = 0;
      if (group_rows(l, g, &rows, &first) != GroupCountError::kNone && bad == INT_MAX) bad = g;
      sum += (rows + BlockM - 1) / BlockM;
    }
    s.sum[t] = sum;
    s.bad[t] = bad;
    arch::sync_block();  // waits for: every thread's sum and first bad group
    if (t == 0) {
      int running = 0, first_bad = INT_MAX;
      for (int i = 0; i < kThreads; ++i) {
        int const v = s.sum[i];
        s.sum[i] = running;
        running += v;
        first_bad = s.bad[i] < first_bad ? s.bad[i] : first_bad;
      }
      int code = 0, value = 0, limit = 0;
      if (first_bad != INT_MAX) {
        int rows = 0, first = 0;
        code = static_cast<int>(group_rows(l, first_bad, &rows, &first, &value, &limit));
      }
      l.tile_rows[l.groups] = code == 0 ? running : 0;
      p.status[0] = code;
      p.status[1] = code == 0 ? 0 : first_bad;
      p.status[2] = value;
      p.status[3] = limit;
      s.bad[0] = code;
    }
    arch::sync_block();  // waits for: the prefix of the threads' sums and the verdict
    bool const ok = s.bad[0] == 0;
    int running = s.sum[t];
    for (int g = begin; g < end; ++g) {
      l.tile_rows[g] = ok ? running : 0;
      int rows = 0, first = 0;
      group_rows(l, g, &rows, &first);
      running += (rows + BlockM - 1) / BlockM;
    }
  }
};

/// Where a grouped problem's tile lies: its group (index, rows, first row) and its origin in the
/// group's C, and its split of K. 24 bytes: what the WGMMA kernel's producer hands its consumers
/// beside a stage.
struct GroupedPlacement {
  int group, rows, first, m0, n0;
  int split;  // the tile's part of K (split-K)
};

/// Where group g (its first row `first`: contiguous, of A's rows) lives in the flattened
/// operands, C, the bias and the scales (GroupOffsets).
FP8GEMM_HOST_DEVICE GroupOffsets group_offsets(GroupLayout const& l, int g, int first) {
  bool const contiguous = l.mode == GroupMode::kContiguous;
  GroupOffsets o;
  o.group = g;
  o.a_row = contiguous ? first : g * l.a_group_rows;
  o.b_row = g * l.b_group_rows;
  o.c = contiguous ? std::int64_t(first) * l.ldc : std::int64_t(g) * l.c_group_stride;
  o.c_row = contiguous ? first : g * l.c_group_rows;
  o.bias = std::int64_t(g) * l.n;
  o.a_tensor = l.a_tensor_per_group ? g : 0;
  return o;
}

/// The tiles of a grouped problem, walked in banded order over (tile rows of all groups, tile
/// columns): tile row R belongs to the group whose prefix range holds it. kPersistent: the
/// persistent walk of PersistentTileScheduler (grid = min(SMs, an upper bound of the tiles); CTA
/// c takes items c, c + grid, ...); else one workgroup per tile over an upper bound of the tiles
/// (workgroups past the actual count do nothing), as RasterTileScheduler. No clusters.
/// Split-K (split_k > 1, for few tiles on many SMs): work item = (tile, split s), the tile's
/// K tiles [s · k / S, (s + 1) · k / S) (none empty: S <= k), each split's FP32 partial sums
/// stored to a workspace and added by SplitKReduceKernel (kernel_common.hpp).
template <class Policy, bool kPersistent>
struct GroupedTileScheduler {
  using Arch = typename Policy::Arch;
  static constexpr bool kGrouped = true;
  static constexpr bool kOneTilePerWorkgroup = !kPersistent;
  static constexpr int kClusterSize = 1;
  static constexpr bool kStreamK = false;
  /// Whether the policy's two consumers alternate tiles (WGMMA ping-pong): then split_k = 1.
  template <class P, class = void>
  struct PingPong : std::false_type {};
  template <class P>
  struct PingPong<P, std::void_t<decltype(P::kPingPong)>> : std::bool_constant<P::kPingPong> {};
  static constexpr bool kPingPong = PingPong<Policy>::value;
  static_assert(!IsStreamK<Policy>::value,
                "StreamK<P> is Gemm's (one problem): the grouped scheduler walks whole tiles of "
                "each group; use P itself");

  struct Arguments {
    GroupLayout layout;
    int band_m = 0;    // tile rows per band; 0: the scheduler's choice
    int sm_count = 0;  // persistent: > 0 runs on at most that many SMs
    int split_k = 1;   // > 1: each tile's K range split over that many work items
  };
  struct Params {
    GroupLayout layout;
    int tiles_n = 1;
    int band_m = 8;
    int grid = 1;  // workgroups launched
    int split_k = 1;
    int k_tiles = 1;
  };

  /// An upper bound of the tile rows over all groups, whatever the counts on the device:
  /// contiguous ceil-sums of G parts of at most `m` rows (< m / BlockM + G), masked and batched
  /// G · ceil(m / BlockM).
  static std::int64_t max_tile_rows(GroupLayout const& l) {
    std::int64_t const per = (std::int64_t(l.m) + Policy::kBlockM - 1) / Policy::kBlockM;
    if (l.mode == GroupMode::kContiguous) {
      std::int64_t const bound = std::int64_t(l.m) / Policy::kBlockM + l.groups;
      return bound < per * l.groups ? bound : per * l.groups;
    }
    return per * l.groups;
  }

  /// Tile columns: of N (the problem the kernel sees has the flattened operands' rows).
  static int tiles_n(GroupLayout const& l) {
    return static_cast<int>((std::int64_t(l.n) + Policy::kBlockN - 1) / Policy::kBlockN);
  }

  /// `problem`: the flattened operands (M = rows of A, N = rows of B), K, G; the groups' N and
  /// rows are in args.layout.
  static Status can_implement(ProblemShape const& problem, Arguments const& args) {
    int const k_tiles = problem.k_tiles<Policy::kBlockK>();
    if (args.split_k < 1 || args.split_k > k_tiles)
      return Status::error(StatusCode::kErrorInvalidArgument,
                           "split_k must be in [1, ceil(K / BlockK) = ceil(" +
                               std::to_string(problem.k) + " / " + std::to_string(Policy::kBlockK) +
                               ") = " + std::to_string(k_tiles) + "]; got " +
                               std::to_string(args.split_k));
    if (args.split_k > 1 && kPingPong)
      return Status::error(StatusCode::kErrorUnsupported,
                           "split_k > 1 takes a cooperative policy: the ping-pong consumers "
                           "alternate whole tiles of the grouped walk");
    std::int64_t const tiles = max_tile_rows(args.layout) * tiles_n(args.layout) * args.split_k;
    std::int64_t const limit =
        kPersistent ? std::int64_t(INT32_MAX - 65536) : Arch::max_blocks_x(Policy::kThreads);
    if (tiles > limit)
      return Status::error(StatusCode::kErrorInvalidSize,
                           "the groups need up to " + std::to_string(tiles) +
                               " work items (output tiles x split_k); the grouped scheduler takes "
                               "at most " +
                               std::to_string(limit));
    if (args.band_m < 0)
      return Status::error(
          StatusCode::kErrorInvalidArgument,
          "band_m must be >= 0 (0: the scheduler's choice); got " + std::to_string(args.band_m));
    if (args.sm_count < 0)
      return Status::error(
          StatusCode::kErrorInvalidArgument,
          "sm_count must be >= 0 (0: every SM); got " + std::to_string(args.sm_count));
    return Status::success();
  }

  static Status initialize(ProblemShape const& problem, Arguments const& args, Params& p) {
    p.layout = args.layout;
    p.tiles_n = tiles_n(args.layout);
    p.k_tiles = problem.k_tiles<Policy::kBlockK>();
    p.split_k = args.split_k;
    int const tiles = static_cast<int>(max_tile_rows(args.layout) * p.tiles_n * p.split_k);
    if constexpr (kPersistent) {
      int sms = 1;
      FP8GEMM_RETURN_IF_ERROR(arch::multiprocessor_count(&sms));
      if (args.sm_count > 0 && args.sm_count < sms) sms = args.sm_count;
      p.grid = tiles < sms ? tiles : sms;
      p.band_m = args.band_m > 0 ? args.band_m
                                 : PersistentTileScheduler<Policy>::auto_band_m(
                                       p.grid / p.split_k > 0 ? p.grid / p.split_k : 1);
    } else {
      p.grid = tiles;
      p.band_m = args.band_m > 0 ? args.band_m : RasterTileScheduler<Policy>::kDefaultBandM;
    }
    if (p.grid < 1) p.grid = 1;  // no tiles at all (N = 0 is refused; all groups empty)
    return Status::success();
  }
  /// The problem the epilogue sees: C as one matrix of every group's rows (c_rows x N), which a
  /// TMA store addresses by the group's first row plus the tile's.
  static ProblemShape epilogue_problem(Arguments const& args) {
    return {args.layout.c_rows, args.layout.n, 0, args.layout.groups};
  }

  /// The raster form's Params (no SM count to query: it cannot fail).
  static Params to_params(ProblemShape const& problem, Arguments const& args) {
    static_assert(!kPersistent, "the persistent walk's Params come from initialize (SM count)");
    Params p;
    (void)initialize(problem, args, p);
    return p;
  }
  static int grid_x(Params const& p) { return p.grid; }
  static int grid_y(Params const&) { return 1; }

  /// Tile rows of all groups (read on the device, after the counts kernel).
  FP8GEMM_DEVICE static int total_tile_rows(GroupLayout const& l) {
    if (l.mode == GroupMode::kBatched)
      return l.groups * ((l.m + Policy::kBlockM - 1) / Policy::kBlockM);
    return l.tile_rows[l.groups];
  }

  /// The group holding tile row R: the last g in [0, groups) with tile_rows[g] <= R (which skips
  /// empty groups); its first tile row in *first_tile_row.
  FP8GEMM_DEVICE static int find_group(GroupLayout const& l, int r, int* first_tile_row) {
    if (l.mode == GroupMode::kBatched) {
      int const per = (l.m + Policy::kBlockM - 1) / Policy::kBlockM;
      *first_tile_row = r / per * per;
      return r / per;
    }
    int lo = 0, hi = l.groups - 1;
    while (lo < hi) {
      int const mid = (lo + hi + 1) / 2;
      if (l.tile_rows[mid] <= r)
        lo = mid;
      else
        hi = mid - 1;
    }
    *first_tile_row = l.tile_rows[lo];
    return lo;
  }

  using Placed = GroupedPlacement;

  /// Item `linear` (< total tile rows · tiles_n · split_k) placed: its tile (linear / split_k in
  /// banded order, a tile's splits side by side) and split, its group looked up by the tile row's
  /// prefix. The last group found is kept (consecutive items mostly stay in it: a band walks tile
  /// rows of few groups), so most items read nothing from memory.
  FP8GEMM_DEVICE Placed place(int linear) {
    int const split = linear % params_.split_k;
    TileCoord const t =
        banded_tile(linear / params_.split_k, tile_rows_, params_.tiles_n, params_.band_m);
    if (t.m < group_.tile_row_begin || t.m >= group_.tile_row_end) {
      int first_tile_row = 0;
      int const g = find_group(params_.layout, t.m, &first_tile_row);
      int rows = 0, first = 0;
      group_rows(params_.layout, g, &rows, &first);
      group_.index = g;
      group_.rows = rows;
      group_.first = first;
      group_.tile_row_begin = first_tile_row;
      group_.tile_row_end = first_tile_row + (rows + Policy::kBlockM - 1) / Policy::kBlockM;
    }
    return {group_.index,          group_.rows,
            group_.first,          (t.m - group_.tile_row_begin) * Policy::kBlockM,
            t.n * Policy::kBlockN, split};
  }

  /// Split s of S's K tiles of k: [s · k / S, (s + 1) · k / S), none empty while S <= k (an empty
  /// item would leave the WGMMA consumers waiting for a stage that never comes).
  FP8GEMM_HOST_DEVICE static int split_begin(int k_tiles, int split_k, int s) {
    return static_cast<int>(std::int64_t(s) * k_tiles / split_k);
  }

  /// The work of a placed tile (no memory reads: the layout's strides): the tile in the group's
  /// C, where it reads the flattened operands, its group's bounds and offsets, its split of K.
  FP8GEMM_HOST_DEVICE static WorkTile tile_of(Params const& p, Placed const& q) {
    GroupLayout const& l = p.layout;
    WorkTile w =
        work_tile<Policy>(q.m0 / Policy::kBlockM, q.n0 / Policy::kBlockN, 0, p.k_tiles, p.k_tiles);
    w.split = q.split;
    w.k_tile_begin = split_begin(p.k_tiles, p.split_k, q.split);
    w.k_tile_end = split_begin(p.k_tiles, p.split_k, q.split + 1);
    w.group = q.group;
    w.offsets = group_offsets(l, q.group, q.first);
    w.load_m0 = w.offsets.a_row + w.m0;
    w.load_n0 = w.offsets.b_row + w.n0;
    w.bounds = {q.rows, l.n};
    return w;
  }

  /// Raster: this workgroup's one tile (if it is inside the groups' tiles).
  FP8GEMM_DEVICE explicit GroupedTileScheduler(Params const& p)
      : params_(p), tile_rows_(total_tile_rows(p.layout)), next_(0), stride_(1) {
    int const xcds = Arch::kXcds;
    next_ = xcd_contiguous(arch::block_idx_x(), p.grid, xcds);
    items_ = next_ < tile_rows_ * p.tiles_n * p.split_k ? next_ + 1 : 0;
  }
  /// Persistent: CTA `first` of `stride` takes items first, first + stride, ...
  FP8GEMM_DEVICE GroupedTileScheduler(Params const& p, int first, int stride, int /*rank*/)
      : params_(p),
        tile_rows_(total_tile_rows(p.layout)),
        items_(tile_rows_ * p.tiles_n * p.split_k),
        next_(first),
        stride_(stride) {}
  FP8GEMM_DEVICE bool more() const { return next_ < items_; }
  /// Past the next item without computing it (the WGMMA consumers get it from the producer).
  FP8GEMM_DEVICE void skip() { next_ += stride_; }
  FP8GEMM_DEVICE WorkTile next() {
    if (next_ >= items_) return WorkTile{};
    return tile_of(params_, next_placed());
  }
  /// The next item placed (more() must have said true).
  FP8GEMM_DEVICE Placed next_placed() {
    Placed const q = place(next_);
    next_ += stride_;
    return q;
  }

 private:
  /// The last group an item fell in: its index, rows, first row, and tile rows [begin, end).
  struct Group {
    int index = 0, rows = 0, first = 0;
    int tile_row_begin = 0, tile_row_end = 0;  // empty: the first item searches
  };
  Params const& params_;
  int tile_rows_;
  int items_ = 0, next_, stride_;
  Group group_;
};

/// The flattened row r of A (and of the split-K workspace) placed: its group g, that group's
/// first row (contiguous: of A's rows; else 0) and r's row inside the group; false where r lies
/// in no group's rows (past a masked or batched group's rows, past the last contiguous end, or
/// every row when a count was bad: the counts kernel's total tile rows is then 0).
FP8GEMM_DEVICE bool place_row(GroupLayout const& l, int r, int* g, int* first, int* local) {
  *first = 0;
  if (l.mode == GroupMode::kContiguous) {
    if (l.tile_rows[l.groups] == 0 || r >= l.offs[l.groups - 1]) return false;
    int lo = 0, hi = l.groups - 1;  // the first group whose end is past r
    while (lo < hi) {
      int const mid = (lo + hi) / 2;
      if (l.offs[mid] > r)
        hi = mid;
      else
        lo = mid + 1;
    }
    *g = lo;
    *first = lo > 0 ? l.offs[lo - 1] : 0;
    *local = r - *first;
    return true;
  }
  *g = r / l.a_group_rows;
  *local = r - *g * l.a_group_rows;
  if (l.mode == GroupMode::kMasked) return l.tile_rows[l.groups] != 0 && *local < l.masked_m[*g];
  return *local < l.m;
}

}  // namespace fp8gemm
