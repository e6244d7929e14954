// SPDX-License-Identifier: MIT
/// Stream-K (kernel layer): the whole GEMM's work cut evenly over the persistent grid's CTAs, so
/// that no SM idles through a partial last wave of tiles (docs/performance.md#sm90-stream-k).
///
/// Hybrid (stream_k_tiles below): with more tiles than CTAs, the first tiles of the banded order
/// go whole to the CTAs, data-parallel (tile c + j · C to CTA c), as many whole waves as leave
/// between one and two waves' worth of tiles; only those last tiles are cut. Cutting every tile
/// spread the CTAs' ranges over the whole matrix at once, each at its own k-block, and lost L2
/// reuse (1.64x the data-parallel time at 4096 x 4096 x 7168, docs/performance.md#sm90-stream-k).
///
/// Column groups (PersistentTileScheduler): where the tile rows of a column are few (2-8, one band
/// of the banded order), the units cut below are tile columns on grid / R group CTAs, and the R
/// CTAs of a group walk the same segments, each on its own row of the column: they read B's
/// k-blocks together, where rows cut apart read them at different times. Below, "tile" is then a
/// column and "CTA c" a group CTA; its R CTAs c R + r keep a slot each, and a final segment on
/// row r adds the slots of row r's CTAs in the lower group CTAs (every R-th slot).
///
/// The cut tiles' iterations are (tile t, k-block kb) numbered t · KB + kb, t counted from the
/// first cut tile, KB = ceil(K / BlockK). CTA c of C owns the range [begin(c), begin(c + 1)),
///   begin(c) = floor(c · I / C),   I = tiles · KB,
/// and cuts it into segments: the part of one tile's k-blocks inside the range. A segment that
/// reaches the tile's last k-block is the tile's final one; its CTA adds the tile's earlier
/// segments' FP32 partial sums to its own, in CTA order (deterministic), and stores the tile. Any
/// other segment ends where its CTA's range ends, so it is the range's last segment: a CTA leaves
/// at most one partial sum, in its own slot c, and the slots a final segment adds are those of
/// CTAs owner(t · KB) .. c - 1, all below c. A final segment that needs them starts at begin(c):
/// it is the range's first segment.
///
/// A CTA walks its segments last to first (stream_k_segment_before): its partial sum, which a
/// higher CTA waits for, comes first, and its own wait comes last, when the lower CTA's partial
/// (that CTA's first segment) is long done. Walked first to last, each CTA would wait at its start
/// for the whole range of the CTA below, and the waits would chain across the grid. A CTA waits
/// only on lower CTAs, which never wait on higher ones: with every CTA resident (one per SM, the
/// grid no larger than the SMs), or dispatched in index order, the waits cannot close a cycle.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"

namespace fp8gemm {

/// Stream-K's walk for a WGMMA policy P (below): the persistent scheduler cuts all
/// tiles' k-blocks evenly over the CTAs instead of giving each CTA whole tiles, so no SM idles
/// through a partial last wave; a tile cut between CTAs is summed in FP32 through the workspace
/// (Gemm::workspace_size) in a fixed order. Cooperative unclustered policies (straight or
/// swapped); a separate kernel, so P's own kernel carries none of its code.
template <class P>
struct StreamK : P {
  static constexpr bool kStreamK = true;
};
/// kStreamK of a policy: true for StreamK<P>.
template <class P, class = void>
struct IsStreamK : std::false_type {};
template <class P>
struct IsStreamK<P, std::void_t<decltype(P::kStreamK)>> : std::bool_constant<P::kStreamK> {};

/// How many of `tiles` output tiles stream-K cuts on `ctas` CTAs (the rest, the first in banded
/// order, run whole): all of them up to one wave (tiles <= ctas); none when the waves are whole
/// (tiles a multiple of ctas); else the partial last wave's tiles and one whole wave before them,
///   cut = tiles % ctas + ctas,
/// so that each CTA's share of the cut is one to two tiles of k-blocks and a tile is cut between
/// about two CTAs (the partial wave alone, 8 tiles on 132 CTAs, would give each CTA a few k-blocks
/// and each tile's last CTA 16 partial sums to wait for).
FP8GEMM_HOST_DEVICE constexpr int stream_k_tiles(int tiles, int ctas) {
  return tiles <= ctas ? tiles : (tiles % ctas == 0 ? 0 : tiles % ctas + ctas);
}

/// The cut of `tiles` x `k_blocks` iterations over `ctas` CTAs (all >= 1).
struct StreamKPlan {
  int tiles = 1, k_blocks = 1, ctas = 1;

  FP8GEMM_HOST_DEVICE std::int64_t iters() const { return std::int64_t(tiles) * k_blocks; }
  /// CTA c's first iteration; begin(ctas) = iters(). Ranges differ in length by at most one.
  FP8GEMM_HOST_DEVICE std::int64_t begin(int c) const { return iters() * c / ctas; }
  /// The CTA whose range holds iteration `it` (0 <= it < iters()): the last c with begin(c) <= it
  /// (CTAs with empty ranges, when ctas > iters(), own nothing).
  FP8GEMM_HOST_DEVICE int owner(std::int64_t it) const {
    int c = static_cast<int>(it * ctas / iters());  // begin(c) <= it
    while (c + 1 < ctas && begin(c + 1) <= it) ++c;
    return c;
  }
};

/// One segment of a CTA's walk: tile `tile` (in banded order), k-blocks [kb_begin, kb_end).
/// final: kb_end is the tile's last k-block; then [fixup_begin, fixup_end) are the CTAs whose
/// slots hold the tile's earlier partial sums (empty when the segment starts at k-block 0).
/// Otherwise the segment's partial sum goes to its CTA's slot.
struct StreamKSegment {
  int tile = 0;
  int kb_begin = 0, kb_end = 0;
  bool final = false;
  int fixup_begin = 0, fixup_end = 0;
};

/// The segment of CTA `cta` that starts at iteration `it` (begin(cta) <= it < begin(cta + 1)).
FP8GEMM_HOST_DEVICE StreamKSegment stream_k_segment(StreamKPlan const& plan, int cta,
                                                    std::int64_t it) {
  StreamKSegment s;
  s.tile = static_cast<int>(it / plan.k_blocks);
  s.kb_begin = static_cast<int>(it % plan.k_blocks);
  std::int64_t const left = plan.begin(cta + 1) - it;  // iterations left in the range, >= 1
  s.kb_end =
      left < plan.k_blocks - s.kb_begin ? s.kb_begin + static_cast<int>(left) : plan.k_blocks;
  s.final = s.kb_end == plan.k_blocks;
  if (s.final && s.kb_begin > 0) {
    s.fixup_begin = plan.owner(std::int64_t(s.tile) * plan.k_blocks);
    s.fixup_end = cta;
  }
  return s;
}

/// The segment of CTA `cta` that ends at iteration `it_end` (begin(cta) < it_end <=
/// begin(cta + 1), it_end a tile boundary or the range's end): the reverse walk's next one.
FP8GEMM_HOST_DEVICE StreamKSegment stream_k_segment_before(StreamKPlan const& plan, int cta,
                                                           std::int64_t it_end) {
  std::int64_t const tile_start = (it_end - 1) / plan.k_blocks * plan.k_blocks;
  std::int64_t const first = plan.begin(cta);
  return stream_k_segment(plan, cta, tile_start > first ? tile_start : first);
}

}  // namespace fp8gemm
