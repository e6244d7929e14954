// SPDX-License-Identifier: MIT
/// The Hopper epilogue that stores through shared memory with TMA (epilogue layer): each consumer
/// warpgroup converts its rows of the tile into a 128-byte-swizzled staging tile (TMA's box
/// layout) and one of its threads stores the boxes with cp.async.bulk.tensor, which clips rows
/// past M and, in 16-byte units, columns past N (so this path needs N · sizeof(C) % 16 == 0:
/// use_tma). The consumer then goes on to its next
/// tile while the copy drains; it waits for the copy's reads of the staging tile only when it
/// fills the tile again. Same values as DirectStoreEpilogue (whose dequant, arguments and checks it
/// reuses), which it falls back to, decided once per launch, where C's alignment does not allow a
/// tensor map. Its contract: Arguments, Params, SharedStorage, can_implement, initialize, store,
/// finish (before the CTA exits).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/epilogue/direct_store_epilogue.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/smem_swizzle.hpp"

namespace fp8gemm {

/// Policy: a cooperative WgmmaTilePolicy (each consumer owns Policy::kConsumerRows rows of the
/// tile, all BlockN columns), or a swapped one with two consumers (Sm90WgmmaMidM: each owns all
/// BlockM rows of C and 64 of its columns, the consumer's 64 rows of B; its accumulators hold
/// them transposed, TmaWgmmaMainloop::TransposedCoords).
/// StageScales (per-channel, not swapped; GemmConfig sets it where the shared memory allows): a
/// grouped tile's row and column scales are copied into shared memory when its main loop starts
/// (prefetch_group_scales), so that the staging loop reads them there, not from global memory.
template <class Policy, class GranularityT, class EpilogueOp, bool StageScales = false>
struct TmaStoreEpilogue {
  using Direct = DirectStoreEpilogue<Policy, GranularityT, EpilogueOp>;
  using Arguments = typename Direct::Arguments;
  using Dequant = typename Direct::Dequant;  // the scales, read once by the caller
  using ElementC = typename EpilogueOp::Element;
  using Arch = typename Policy::Arch;
  using Atom = typename Policy::Atom;

  static constexpr int kElementBytes = static_cast<int>(sizeof(ElementC));
  static constexpr int kBoxCols = Swizzle128B::kRowBytes / kElementBytes;  // one 128-B row
  /// Swapped operands (Policy::kSwapAB): register r is C[acc_col][64 c + acc_row] (transposed).
  template <class P, class = void>
  struct swaps_ab : std::false_type {};
  template <class P>
  struct swaps_ab<P, std::void_t<decltype(P::kSwapAB)>> : std::bool_constant<P::kSwapAB> {};
  static constexpr bool kTransposed = swaps_ab<Policy>::value;
  /// A consumer's part of the tile, in rows x columns of C: kConsumerRows x BlockN, or swapped
  /// BlockM x 64.
  static constexpr int kRows = kTransposed ? Policy::kBlockM : Policy::kConsumerRows;
  static constexpr int kCols = kTransposed ? Policy::kConsumerRows : Policy::kBlockN;
  static constexpr int kBoxes = kCols / kBoxCols;  // boxes side by side along N
  static constexpr int kBoxBytes = kRows * Swizzle128B::kRowBytes;
  static constexpr int kConsumerBytes = kBoxes * kBoxBytes;
  static_assert(!Policy::kPingPong && Policy::kAtomsM == 1,
                "TmaStoreEpilogue: one m64 row block per consumer of a cooperative tile");
  static_assert(kCols % kBoxCols == 0,
                "TmaStoreEpilogue: a consumer's columns must be whole 128-byte rows of C");
  static_assert(kRows <= 256, "TmaStoreEpilogue: a box has at most 256 rows");
  static_assert(kElementBytes == 1 || kElementBytes == 2 || kElementBytes == 4,
                "TmaStoreEpilogue: C elements of 1, 2 or 4 bytes");

  /// Whether this epilogue stages a grouped tile's scales (StageScales, per-channel, not swapped).
  static constexpr bool kStagesScales =
      StageScales && std::is_same_v<GranularityT, PerChannel> && !kTransposed;
  /// Register pairs whose staged scales the staging loop loads before it stores them (16
  /// loads issued back to back, then 8 stores: one shared-memory latency per chunk, not per pair)
  static constexpr int kStagedChunk = 8;
  /// Per consumer: s_a of its kRows rows, then s_b of the tile's kCols columns (kStagesScales).
  struct StagedScales {
    float v[Policy::kConsumers][kRows + kCols];
  };
  struct NoStagedScales {};
  /// Per consumer: kBoxes boxes of [kRows][128 B], each 1024-byte aligned (the swizzle atom);
  /// before them, the staged scales (an empty base where there are none: no bytes).
  struct SharedStorage : std::conditional_t<kStagesScales, StagedScales, NoStagedScales> {
    alignas(1024) std::uint8_t c[Policy::kConsumers][kConsumerBytes];
  };

  /// Direct's arguments plus C's tensor map and whether this launch uses it.
  struct Params : Arguments {
    arch::TmaDescriptor map_c;  // C [M, N], box kBoxCols x kRows, 128-byte swizzle
    bool tma_store = false;     // false: every tile goes through Direct::store
  };

  static Status can_implement(ProblemShape const& problem, Arguments const& args) {
    return Direct::can_implement(problem, args);
  }

  /// One element, from registers (the split-K reduction's epilogue): Direct's.
  FP8GEMM_DEVICE static float finish_element(Arguments const& args, int m, int n, float acc) {
    return Direct::finish_element(args, m, n, acc);
  }

  /// C's tensor map, or none: TMA needs C 16-byte aligned and ldc · sizeof(C) a multiple of 16
  /// (else Direct's stores serve this launch, with the same values).
  /// NOTE: and N · sizeof(C) a multiple of 16 (use_tma): a TMA store whose box crosses column N
  /// of a row clips in 16-byte units, not elements, and would write C's padding columns
  /// (docs/performance.md#tma-store-clipping).
  static arch::TmaTensor2d map(ProblemShape const& problem, Arguments const& args) {
    arch::TmaTensor2d t;
    t.base = args.params.c;
    t.element = kElementBytes == 4   ? arch::TmaElement::kF32
                : kElementBytes == 2 ? arch::TmaElement::kU16
                                     : arch::TmaElement::kU8;
    t.inner = static_cast<std::uint64_t>(problem.n);
    t.outer = static_cast<std::uint64_t>(problem.m);
    t.row_stride_bytes = static_cast<std::uint64_t>(args.params.ldc) * kElementBytes;
    t.box_inner = static_cast<std::uint32_t>(kBoxCols);
    t.box_outer = static_cast<std::uint32_t>(kRows);
    t.swizzle = arch::TmaSwizzle::k128B;
    return t;
  }

  /// Whether C allows the TMA path: a valid tensor map (C 16-byte aligned, ldc · sizeof(C) a
  /// multiple of 16) and rows that end on 16-byte boundaries (N · sizeof(C) % 16 == 0: the NOTE
  /// above). Host-checkable; use_tma adds the build's encoder.
  static bool c_allows_tma(ProblemShape const& problem, Arguments const& args) {
    return arch::check_tma_tensor_2d(map(problem, args)).ok() &&
           static_cast<std::int64_t>(problem.n) * kElementBytes % 16 == 0;
  }
  /// Whether a launch stores through TMA.
  static bool use_tma(ProblemShape const& problem, Arguments const& args) {
    return arch::kTmaEncoderAvailable && c_allows_tma(problem, args);
  }

  static Status initialize(ProblemShape const& problem, Arguments const& args, Params& p) {
    static_cast<Arguments&>(p) = Direct::to_params(args);
    p.tma_store = use_tma(problem, args);
    if (p.tma_store)
      FP8GEMM_RETURN_IF_ERROR(arch::encode_tma_descriptor(map(problem, args), &p.map_c));
    return Status::success();
  }

  /// Byte offset in a consumer's staging tile of (row, col) of its rows: box col / kBoxCols,
  /// then the box's 128-byte-swizzled row (TMA's CU_TENSOR_MAP_SWIZZLE_128B layout).
  FP8GEMM_HOST_DEVICE static std::uint32_t staging_offset(int row, int col) {
    int const box = col / kBoxCols;
    int const byte = (col % kBoxCols) * kElementBytes;
    return static_cast<std::uint32_t>(box * kBoxBytes) +
           Swizzle128B::offset(static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(byte));
  }

  /// This consumer's rows of the tile at (m0, n0): y = EpilogueOp(dequant(acc)) into its
  /// staging tile, then one thread's TMA stores. All 128 threads of the consumer call it; `dq`:
  /// Dequant::load(p), read before the first tile.
  template <class Accumulators, class Coords>
  FP8GEMM_DEVICE static void store(Params const& p, SharedStorage& s, OutputBounds const& bounds,
                                   int m0, int n0, Accumulators const& acc, Coords const& c,
                                   Dequant const& dq) {
    if (!p.tma_store) {
      Direct::store(p, bounds, m0, n0, acc, c, dq);
      return;
    }
    stage_and_store(p, p.map_c, s, bounds, m0, n0, m0, acc, c, dq);
  }

  /// A grouped problem's tile (m0, n0 in its group; C's tensor map over every group's rows),
  /// staged as one GEMM's: a consumer's rows whole inside their group stored through TMA at the
  /// group's first row plus m0; a group's last, partial rows copied out of the staging tile by
  /// the consumer's threads, those below the group's end only (a TMA store clips at the map's
  /// end, not the group's). From registers (Direct) only where C allows no tensor map. Every copy
  /// is 16-byte aligned: a tensor map over all groups' rows exists only where groups start whole
  /// rows apart (GroupedGemm's c_rows), so C moved to a group stays on a 16-byte row boundary.
  template <class Accumulators, class Coords>
  FP8GEMM_DEVICE static void store_group(Params const& p, SharedStorage& s, GroupOffsets const& o,
                                         OutputBounds const& bounds, int m0, int n0,
                                         Accumulators const& acc, Coords const& c,
                                         Dequant const& dq) {
    Arguments const group = Direct::for_group(p, o);
    if (p.tma_store) {
      // this consumer's rows of C (swapped: all the tile's) whole inside the group
      int const first = kTransposed ? 0 : c.first_row();
      stage_and_store<kStagesScales>(group, p.map_c, s, bounds, m0, n0, o.c_row + m0, acc, c, dq,
                                     m0 + first + kRows <= bounds.m_end);
    } else {
      Direct::store(group, bounds, m0, n0, acc, c, dq);
    }
  }

  /// A grouped tile's scales (kStagesScales, TMA stores): this consumer's s_a rows and the tile's
  /// s_b columns of the group, copied asynchronously into its StagedScales when its main loop
  /// starts, so that store_group's staging loop reads shared memory, not global memory (whose
  /// lines the weights of many groups evict from L2: docs/grouped.md). Indices clamped into the
  /// group's bounds as the staging loop clamps them. A no-op for other epilogues.
  template <class Coords>
  FP8GEMM_DEVICE static void prefetch_group_scales(Params const& p, SharedStorage& s,
                                                   GroupOffsets const& o,
                                                   OutputBounds const& bounds, int m0, int n0,
                                                   Coords const& c) {
    if constexpr (kStagesScales) {
      if (!p.tma_store) return;
      Arguments const group = Direct::for_group(p, o);
      int const t = arch::thread_idx_in_place() % Arch::kWarpgroupThreads;
      int const row0 = m0 + c.first_row();
      std::uint32_t const base = arch::smem_address(s.v[c.consumer]);
      // s_a[row0 + i] at v[i] (i < kRows), s_b[n0 + j] at v[kRows + j]; the consumer's previous
      // tile read them in its staging loop, before the barrier that ends it (stage_and_store's
      // second), which every thread here has passed
      for (int i = t; i < kRows + kCols; i += Arch::kWarpgroupThreads) {
        float const* src;
        if (i < kRows) {
          int const m = row0 + i;
          src = group.scale_a.data + (m < bounds.m_end ? m : bounds.m_end - 1);
        } else {
          int const n = n0 + (i - kRows);
          src = group.scale_b.data + (n < bounds.n_end ? n : bounds.n_end - 1);
        }
        arch::copy_global_to_shared_4(base + static_cast<std::uint32_t>(i) * 4u, src);
      }
      arch::async_copy_commit();
    } else {
      (void)p, (void)s, (void)o, (void)bounds, (void)m0, (void)n0, (void)c;
    }
  }

  /// The tile at (m0, n0) of `args`' C staged, then stored through `map` at row map_m0 (m0 for
  /// one GEMM; the group's first row plus m0 in a grouped problem's map of every group's rows),
  /// or, with through_tma false, copied from the staging tile to args' C by the consumer's
  /// threads (copy_staged_rows: rows below bounds.m_end). `map` stays where the kernel has it
  /// (parameter space): a TMA descriptor is not copied. kStagedScales: the scales are read from
  /// the consumer's StagedScales (prefetch_group_scales), not through dq.
  template <bool kStagedScales = false, class Accumulators, class Coords>
  FP8GEMM_DEVICE static void stage_and_store(Arguments const& p, arch::TmaDescriptor const& map,
                                             SharedStorage& s, OutputBounds const& bounds, int m0,
                                             int n0, int map_m0, Accumulators const& acc,
                                             Coords const& c, Dequant const& dq,
                                             bool through_tma = true) {
    std::uint8_t* const tile = s.c[c.consumer];
    int const bar = barrier_id(c.consumer);
    // this thread's copies of the staged scales landed (the barrier below: everyone's)
    if constexpr (kStagedScales) arch::async_copy_wait<0>();
    // waits for: this consumer's previous TMA stores finished reading the staging tile (thread
    // 0's wait), its threads' copies out of it (copy_staged_rows) finished, and (kStagedScales)
    // its threads' scale copies landed
    if (c.t == 0) arch::tma_store_wait_read<0>();
    arch::named_barrier_sync(bar, Arch::kWarpgroupThreads);

    // this thread's place, read here: its addresses are computed per tile, not kept across
    // the main loop (arch::thread_idx_in_place)
    int const t = arch::thread_idx_in_place() % Arch::kWarpgroupThreads;
    std::uint32_t const tile_address = arch::smem_address(tile);
    std::uint32_t scales = 0;  // kStagedScales: this consumer's StagedScales
    if constexpr (kStagedScales) scales = arch::smem_address(s.v[c.consumer]);
    // the consumer's first row and column of C (swapped: all rows, its 64 columns)
    int const row0 = kTransposed ? m0 : m0 + c.first_row();
    int const col0 = kTransposed ? n0 + c.first_row() : n0;
    // The epilogue's parameters in registers, read once per tile
    typename EpilogueOp::Params const params = p.params;
    bool const interior =
        m0 + Policy::kBlockM <= bounds.m_end && n0 + Policy::kBlockN <= bounds.n_end;
    // Register pairs (r, r + 1): C[row0 + acc_row][n0 + acc_col], and its right neighbour
    // (Atom::kCAdjacentPairs) into the staging tile (swapped: stage_transposed). kEdge: the general
    // case (outputs outside C are clipped by the TMA store; they are computed on a valid (m, n), so
    // that bias and per-channel scales are read in bounds, and left out of the amax). Without it
    // (an interior tile, no amax, no bias: the common case) the per-element work is the dequant,
    // the activation, one conversion per pair and one st.shared.
    auto stage = [&](auto edge_c, typename EpilogueOp::Params const& q) {
      constexpr bool kEdge = decltype(edge_c)::value;
      float amax = 0.0f;
      if constexpr (kTransposed) {
        stage_transposed<kEdge>(p, q, dq, acc, t, tile_address, row0, col0, interior, bounds, amax);
      } else {
        // kStagedScales: the pairs in chunks of kChunk, each chunk's scales loaded before its
        // first store (a load issued after a st.shared waits for it: they may alias)
        constexpr int kChunk = kStagedScales ? kStagedChunk : Atom::kAccumulators / 2;
        static_assert((Atom::kAccumulators / 2) % kChunk == 0, "whole chunks of pairs");
        FP8GEMM_UNROLL
        for (int r0 = 0; r0 < Atom::kAccumulators; r0 += 2 * kChunk) {
          // kStagedScales: s_a of the pair's row, s_b of its two columns
          [[maybe_unused]] float sa[kChunk], sb0[kChunk], sb1[kChunk];
          if constexpr (kStagedScales) {
            FP8GEMM_UNROLL
            for (int i = 0; i < kChunk; ++i) {
              auto const row = static_cast<std::uint32_t>(Atom::acc_row(t, r0 + 2 * i));
              auto const col = static_cast<std::uint32_t>(Atom::acc_col(t, r0 + 2 * i));
              sa[i] = arch::load_shared_f32(scales + row * 4u);
              arch::Float2 const b = arch::load_shared_f32x2(scales + (kRows + col) * 4u);
              sb0[i] = b.x, sb1[i] = b.y;  // col even: 8-byte aligned
            }
          }
          FP8GEMM_UNROLL
          for (int r = r0; r < r0 + 2 * kChunk; r += 2) {
            int const row = Atom::acc_row(t, r);  // in this consumer's rows; r + 1: same row,
            int const col = Atom::acc_col(t, r);  // next column (Atom::kCAdjacentPairs)
            int m = row0 + row, n = col0 + col, n1 = n + 1;
            bool in0 = true, in1 = true;
            if constexpr (kEdge) {
              int const m_end = bounds.m_end, n_end = bounds.n_end;
              in0 = interior || (m < m_end && n < n_end);
              in1 = interior || (m < m_end && n1 < n_end);
              m = m < m_end ? m : m_end - 1;
              n1 = n1 < n_end ? n1 : n_end - 1;
              n = n < n_end ? n : n_end - 1;
            }
            float d0, d1;
            if constexpr (kStagedScales) {
              int const i = (r - r0) / 2;
              d0 = scale_twice(acc.v[0][0][r], sa[i], sb0[i]);
              d1 = scale_twice(acc.v[0][0][r + 1], sa[i], sb1[i]);
            } else {
              d0 = dq(p, m, n, acc.v[0][0][r]);
              d1 = dq(p, m, n1, acc.v[0][0][r + 1]);
            }
            float const y0 = EpilogueOp::compute(q, d0, n);
            float const y1 = EpilogueOp::compute(q, d1, n1);
            arch::store_shared(tile_address + staging_offset(row, col),
                               EpilogueOp::pair_bits(q, y0, y1));
            if constexpr (kEdge) {
              fold(amax, in0 ? y0 : 0.0f);
              fold(amax, in1 ? y1 : 0.0f);
            }
          }
        }
      }
      return amax;
    };
    float amax = 0.0f;
    if (interior && params.amax == nullptr && params.bias == nullptr) {
      typename EpilogueOp::Params lean = params;
      lean.bias = nullptr;  // known null here: no bias branch per element
      stage(std::false_type{}, lean);
    } else {
      amax = stage(std::true_type{}, params);
    }
    arch::fence_proxy_async_shared();  // the writes above, for the TMA store's reads
    // waits for: every thread of this consumer wrote its part of the staging tile
    arch::named_barrier_sync(bar, Arch::kWarpgroupThreads);
    if (!through_tma) {
      copy_staged_rows(params, tile_address, t, row0, col0, bounds);
    } else if (c.t == 0) {
      FP8GEMM_UNROLL
      for (int b = 0; b < kBoxes; ++b)
        arch::tma_store_2d(&map, tile + b * kBoxBytes, col0 + b * kBoxCols,
                           map_m0 + (kTransposed ? 0 : c.first_row()));
      arch::tma_store_commit_group();
    }
    if (params.amax != nullptr) arch::atomic_max_nonnegative(params.amax, amax);
  }

  /// Before the CTA exits: this consumer's last stores have read their staging tile (shared
  /// memory must outlive the copies' reads) and written C.
  template <class Coords>
  FP8GEMM_DEVICE static void finish(Params const& p, Coords const& c) {
    if (p.tma_store && c.t == 0) arch::tma_store_wait<0>();  // waits for: the last stores
  }

  /// Copy i of copy_staged_rows (0 <= i < kCopies): 16 bytes of the consumer's staging tile at
  /// `offset`, C's row `row` of the consumer's rows and its columns [col, col + 16 / sizeof(C)).
  /// Copy i is box i / (kRows · 8), row i / 8 % kRows, 16-byte piece i % 8 of the row's 128
  /// bytes: consecutive threads along a row (a warp writes four rows' whole 128 bytes).
  struct StagedCopy {
    int row = 0, col = 0;
    std::uint32_t offset = 0;
  };
  static constexpr int kCopyBytes = Swizzle128B::kChunkBytes;
  static constexpr int kCopiesPerRow = Swizzle128B::kRowBytes / kCopyBytes;
  static constexpr int kCopies = kBoxes * kRows * kCopiesPerRow;
  FP8GEMM_HOST_DEVICE static constexpr StagedCopy staged_copy(int i) {
    int const piece = i % kCopiesPerRow, row = i / kCopiesPerRow % kRows;
    int const box = i / (kCopiesPerRow * kRows);
    return {row, box * kBoxCols + piece * (kCopyBytes / kElementBytes),
            static_cast<std::uint32_t>(box * kBoxBytes) +
                Swizzle128B::offset(static_cast<std::uint32_t>(row),
                                    static_cast<std::uint32_t>(piece * kCopyBytes))};
  }

 private:
  /// The staging tile's rows below bounds.m_end and columns below n_end to C (q.c, q.ldc), one
  /// staged_copy per thread and round. A copy is whole inside C or outside: N · sizeof(C) % 16
  /// == 0 (use_tma); C and ldc · sizeof(C) are 16-byte aligned (its tensor map), so is each copy.
  FP8GEMM_DEVICE static void copy_staged_rows(typename EpilogueOp::Params const& q,
                                              std::uint32_t tile_address, int t, int row0, int col0,
                                              OutputBounds const& bounds) {
    FP8GEMM_UNROLL
    for (int i = t; i < kCopies; i += Arch::kWarpgroupThreads) {
      StagedCopy const x = staged_copy(i);
      int const m = row0 + x.row, n = col0 + x.col;
      if (m >= bounds.m_end || n >= bounds.n_end) continue;
      arch::copy_shared_to_global_16(tile_address + x.offset,
                                     q.c + static_cast<std::int64_t>(m) * q.ldc + n);
    }
  }

  /// The transposed staging of stage_and_store (swapped operands): register r is
  /// C[row0 + acc_col][col0 + acc_row], one element (its neighbour along N is another thread's),
  /// one st.shared of sizeof(C) bytes; kEdge as there (amax folded into `amax`).
  template <bool kEdge, class Accumulators>
  FP8GEMM_DEVICE static void stage_transposed(Arguments const& p,
                                              typename EpilogueOp::Params const& q,
                                              Dequant const& dq, Accumulators const& acc, int t,
                                              std::uint32_t tile_address, int row0, int col0,
                                              bool interior, OutputBounds const& bounds,
                                              float& amax) {
    FP8GEMM_UNROLL
    for (int r = 0; r < Atom::kAccumulators; ++r) {
      int const row = Atom::acc_col(t, r), col = Atom::acc_row(t, r);
      int m = row0 + row, n = col0 + col;
      bool in = true;
      if constexpr (kEdge) {
        in = interior || (m < bounds.m_end && n < bounds.n_end);
        m = m < bounds.m_end ? m : bounds.m_end - 1;
        n = n < bounds.n_end ? n : bounds.n_end - 1;
      }
      float const y = EpilogueOp::compute(q, dq(p, m, n, acc.v[0][0][r]), n);
      arch::store_shared(tile_address + staging_offset(row, col), element_bits(q, y));
      if constexpr (kEdge) fold(amax, in ? y : 0.0f);
    }
  }

  /// y converted to C's element as Epilogue::store converts it, as the bits st.shared stores (2
  /// or 4 bytes: the transposed staging takes bf16 / fp16 / fp32 C, WgmmaEpilogueChoice).
  FP8GEMM_DEVICE static auto element_bits(typename EpilogueOp::Params const& q, float y) {
    static_assert(kElementBytes == 2 || kElementBytes == 4,
                  "TmaStoreEpilogue: the transposed staging stores 2- or 4-byte elements");
    using Bits = std::conditional_t<kElementBytes == 2, std::uint16_t, std::uint32_t>;
    ElementC const v = convert_output<ElementC>(y, q.output_scale);
    Bits bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
  }
  /// amax over |y| (NaN sticks), as Direct's.
  FP8GEMM_DEVICE static void fold(float& amax, float y) {
    float const mag = fabsf(y);
    amax = (mag > amax || mag != mag) ? mag : amax;
  }
  /// Named barriers 3 and 4 (0: the block's, 1 and 2: the ping-pong hand-off): one per consumer,
  /// among its 128 threads.
  FP8GEMM_DEVICE static int barrier_id(int consumer) { return 3 + consumer; }
};

}  // namespace fp8gemm
