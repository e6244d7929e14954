// SPDX-License-Identifier: MIT
/// BufferLdsPingPongMainloop's policy (mainloop layer): which configs it runs
/// (BufferLdsPingPongSupports, with the sentence of the first rule a config fails), the shape of
/// one K tile (clusters, loads, reads), its LDS layouts and storage, and where each lane's loads
/// and reads go in LDS. All constexpr: a dispatcher can evaluate it without compiling the mainloop.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/amd/direct_to_lds.hpp"
#include "fp8gemm/arch/mma_atom.hpp"
#include "fp8gemm/mainloop/common.hpp"
#include "fp8gemm/mainloop/operand_checks.hpp"
#include "fp8gemm/policy/rule.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/lds_layout.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// Whether BufferLdsPingPongMainloop can run Policy with B stored kLayoutB, these scales and this
/// promotion interval (it promotes, if at all, once per K tile). kWhyNot: the first failing rule
/// in words (nullptr when value holds).
template <class Policy, class Granularity, LayoutB kLayoutB, int kPromoteK,
          class TileLoad = arch::DefaultTileLoad<typename Policy::Arch>>
struct BufferLdsPingPongSupports {
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  static constexpr int kWaves = Policy::kWaves;
  static constexpr bool kKBlocked = PromotionPlan<Policy, Granularity, kPromoteK>::kKBlockedScales;
  /// K-blocked scales: each K tile lies inside one scale block, so the scale block is a whole
  /// number of K tiles (scale_offset: K tile t uses scale block t · BlockK / bk). A block of 96
  /// or 192 K over tiles of 64 or 128 would straddle tiles: those go to LdsMultistageMainloop,
  /// whose static_asserts refuse them in words.
  static constexpr bool kPromotesPerTile = kKBlocked
                                               ? Granularity::kBlockK % Policy::kBlockK == 0
                                               : (kPromoteK == 0 || kPromoteK == Policy::kBlockK);
  /// Rows a wave's tile load fills: 64 lanes x kLoadBytes over rows of BlockK bytes (16 bytes
  /// through registers, else the arch's direct-to-LDS width).
  static constexpr bool kStaged = std::is_same_v<TileLoad, arch::ThroughRegisters>;
  static constexpr int kLoadBytes = kStaged ? 16 : arch::direct_to_lds_bytes<Arch>::value;
  static constexpr int kSlotsPerWaveLoadRaw = kLoadBytes * Arch::kWaveSize / Policy::kBlockK;
  static constexpr int kSlotsPerWaveLoad = kSlotsPerWaveLoadRaw > 0 ? kSlotsPerWaveLoadRaw : 1;
  /// The atom reads a lane's K bytes of the tile as 16-byte chunks (one per 64 of K): either as
  /// its own fragment (kK == BlockK, 16-byte chunks: gfx950's 16x16x128) or kBlockK / kK MFMAs at
  /// a time, 8 bytes each (one 8-byte chunk per lane: gfx942's 16x16x32; K permuted in the tile).
  static constexpr bool kAtomFits =
      Atom::kK == Policy::kBlockK
          ? Atom::kAChunks * Atom::kAChunkBytes == Policy::kBlockK / 4 &&
                Atom::kBChunks * Atom::kBChunkBytes == Policy::kBlockK / 4 &&
                Atom::kAChunkBytes == 16 && Atom::kBChunkBytes == 16
          : Policy::kBlockK % Atom::kK == 0 && Atom::kAChunks == 1 && Atom::kBChunks == 1 &&
                Atom::kAChunkBytes == 8 && Atom::kBChunkBytes == 8 && Atom::kK == 32;
  /// A cluster's MFMAs (2 B atoms x kAtomsM A atoms x kBlockK / kK each) carry the next
  /// cluster's B reads, one 16-byte read after each of the first 2 kBlockK / 64: a 16-row wave
  /// tile on gfx950 (2 MFMAs for 4 reads) would leave reads out.
  static constexpr bool kReadsFit =
      Atom::kK <= Policy::kBlockK &&
      2 * Policy::kAtomsM * (Policy::kBlockK / Atom::kK) >= 2 * (Policy::kBlockK / 64);
  /// Hardware MX-32 scales go into the MFMA itself, which the promoted path (partial sums per
  /// atom) does not issue: MX-32 with PromoteEvery runs on LdsMultistageMainloop.
  static constexpr bool kScalesFitPromotion =
      !PromotionPlan<Policy, Granularity, kPromoteK>::kHardwareMx || kPromoteK == 0;
  /// Blockwise: each wave loads its tile's scales a wave-wide row (64 floats) at a time.
  static constexpr bool kScaleLoadsFit = !kKBlocked || (Policy::kWaveTileM % Arch::kWaveSize == 0 &&
                                                        Policy::kWaveTileN % Arch::kWaveSize == 0);

  /// The rules in order, each with the sentence that says why a config failing it is refused.
  static constexpr int kRuleCount = 12;  // a bound, so nvcc sees a complete array in the class
  static constexpr Rule kRules[kRuleCount] = {
      {arch::direct_to_lds_bytes<Arch>::value > 0 && (kLoadBytes == 16 || kLoadBytes == 4),
       "the target has no buffer loads into LDS of 4 or 16 bytes per lane (CDNA only)"},
      {!kStaged || kWaves == 4, "tile loads through registers need 4 waves"},
      {kLayoutB == LayoutB::kNK, "B must be stored N x K (mk_nk_mn)"},
      {Arch::kWaveSize == 64 && Atom::kM == 16 && Atom::kN == 16,
       "the atom must be a 16x16 MFMA of a 64-lane wave"},
      {(Policy::kBlockK == 128 || Policy::kBlockK == 64) && kAtomFits,
       "BlockK and the atom must be 128 with gfx950's 16x16x128 or 64 with gfx942's 16x16x32"},
      {kWaves == 4 || kWaves == 8, "the block must have 4 or 8 waves"},
      {Policy::kAtomsN % 4 == 0, "each wave needs an even number of B atom pairs"},
      {Policy::kBlockM % (kSlotsPerWaveLoad * kWaves) == 0 &&
           (Policy::kWavesN * 32) % (kSlotsPerWaveLoad * kWaves) == 0,
       "the A tile and each B part must be whole wave loads of every wave"},
      {kPromotesPerTile,
       "promotion must be once per K tile (K-blocked scales: a whole number of K tiles per scale "
       "block)"},
      {kReadsFit, "wave tiles of 16 rows leave the next cluster's B reads without MFMAs"},
      {kScalesFitPromotion, "hardware MX-32 scales do not take PromoteEvery"},
      {kScaleLoadsFit, "Blockwise needs wave tiles of multiples of 64 rows and columns"},
  };
  static constexpr char const* why_not() { return first_failing(kRules); }
  static constexpr char const* kWhyNot = why_not();
  static constexpr bool value = kWhyNot == nullptr;
};

/// The shape of one K tile and where its bytes go: A and B in two LDS stages of [kBlockM][kBlockK]
/// and [kBlockN][kBlockK], XOR-swizzled (tile/lds_layout.hpp). On gfx942 (kBlockK 64, 16x16x32
/// MFMA) a lane reads its 16 bytes of a row per tile with one ds_read_b128 and feeds them to two
/// MFMAs (read_k: K permuted within the tile, identically for A and B).
template <class PolicyT, class GranularityT, LayoutB kLayoutB, int kPromoteKV, class TileLoadT>
struct BufferLdsPingPongPolicy {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Atom = typename Policy::Atom;
  using Arch = typename Policy::Arch;
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  using Supports = BufferLdsPingPongSupports<Policy, Granularity, kLayoutB, kPromoteKV, TileLoadT>;
  static constexpr int kStages = 2;
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kWaves = Policy::kWaves;
  static constexpr int kWaveSize = Arch::kWaveSize;
  static constexpr bool kPingPong = kWaves == 8;  // two waves per SIMD (waves w and w + 4)

  // ---- shape of one K tile ------------------------------------------------------------------
  static constexpr int kAtomsM = Policy::kAtomsM;
  static constexpr int kAtomsN = Policy::kAtomsN;
  static constexpr int kClusterAtomsN = 2;                    // B atoms per cluster
  static constexpr int kClusters = kAtomsN / kClusterAtomsN;  // phases per K tile
  static constexpr int kSlotBytes = Policy::kBlockK;          // one LDS row of BlockK fp8
  // One load instruction: 16 B per lane (gfx950 direct, or through registers: 1 KiB, 1024 /
  // kBlockK rows), 4 B with gfx942's direct loads (256 B, 4 rows).
  static constexpr bool kStaged = Supports::kStaged;
  static constexpr int kLoadBytes = Supports::kLoadBytes;
  static constexpr int kWaveLoadBytes = kLoadBytes * kWaveSize;
  static constexpr int kSlotsPerWaveLoad = kWaveLoadBytes / kSlotBytes;
  static constexpr int kLanesPerSlot = kSlotBytes / kLoadBytes;  // lanes filling one row
  /// With one wave per SIMD (4 waves, all in step) no other wave fills the matrix pipe during an
  /// L phase, so the loads of L_(c+1) go between the MFMAs of M_c instead (M_(kClusters-1): L_0
  /// of the next tile), and the L phase keeps only its waits and barrier. Safe: what they
  /// overwrite was read before L_c's lgkmcnt(0) wait and barrier, which every wave has passed;
  /// program order, and so every counted vmcnt, is unchanged. With the ping-pong the late half
  /// waits for its reads one barrier later, so there the loads stay in the L phase.
  /// Measured: docs/performance.md#pingpong-loads-in-m-phase
  static constexpr bool kLoadsInMPhase = !kPingPong;
  // A lane's K bytes of one row per tile, in 16-byte reads (16 x lane / 16 + 64 x c): 2 on
  // gfx950; 1 on gfx942, where it feeds kMmasPerAtom MFMAs of 8 bytes.
  static constexpr int kReadsPerFragment = Policy::kBlockK / 64;
  static constexpr int kMmasPerAtom = Policy::kBlockK / Atom::kK;
  using FragTileA = arch::Fragment<16 * kReadsPerFragment>;  // Atom::FragA when kMmasPerAtom == 1
  using FragTileB = arch::Fragment<16 * kReadsPerFragment>;
  static_assert(sizeof(typename Atom::FragA) * kMmasPerAtom == sizeof(FragTileA) &&
                    sizeof(typename Atom::FragB) * kMmasPerAtom == sizeof(FragTileB),
                "a lane's tile bytes are its kMmasPerAtom fragments");

  // ---- accumulation (as LdsMultistageMainloop) ---------------------------------------------
  using Promotion = PromotionPlan<Policy, Granularity, kPromoteKV>;  // its register budget too
  static constexpr bool kHardwareMx = Promotion::kHardwareMx;
  static constexpr bool kKBlockedScales = Promotion::kKBlockedScales;
  static constexpr int kPromoteK = Promotion::kPromoteK;
  static constexpr bool kUsePartial = Promotion::kUsePartial;
  static constexpr int kMxBlocksPerTile = Policy::kBlockK / 32;  // E8M0 bytes per row and K tile
  /// Promoting: how many atoms after its MFMAs an atom's partial sum is promoted (so the vector
  /// ALU reads a result the matrix pipe has finished; one partial-sum set per atom in flight).
  /// Measured: docs/performance.md#pingpong-promote-lag
  static constexpr int kPromoteLag = 3;
  static constexpr int kPartialSets = kPromoteLag + 1;  // partial sums in flight

  /// What one GEMM's mainloop reads: a [M, K], b [N, K], the scales per granularity.
  struct Arguments {
    MatrixView<ElementA> a;
    MatrixView<ElementB> b;  // [N, K]
    ScaleView<Granularity> scale_a;
    ScaleView<Granularity> scale_b;
  };

  /// What BufferLdsPingPongMainloop needs of its arguments (host side); the message names the
  /// failed check.
  static Status can_implement(Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    FP8GEMM_RETURN_IF_ERROR(check_operands_for_vector_loads(args.a, args.b, LayoutB::kNK));
    // Buffer offsets are 32-bit: a block tile's rows, from its first row, must stay below 2^31.
    constexpr std::int64_t kMaxRange = 2147483647;
    if (args.a.ld * Policy::kBlockM > kMaxRange)
      return fail(StatusCode::kErrorLeadingDimension,
                  "lda * " + std::to_string(Policy::kBlockM) +
                      " must be below 2^31 (32-bit buffer offsets of one block tile); got lda=" +
                      std::to_string(args.a.ld));
    if (args.b.ld * Policy::kBlockN > kMaxRange)
      return fail(StatusCode::kErrorLeadingDimension,
                  "ldb * " + std::to_string(Policy::kBlockN) +
                      " must be below 2^31 (32-bit buffer offsets of one block tile); got ldb=" +
                      std::to_string(args.b.ld));
    if constexpr (kKBlockedScales) {
      // K-block-major A scales: a wave's range spans every K block, 4 (cols - 1) ld bytes and more
      if (args.scale_a.ld != 0 && args.scale_a.span(Granularity::kABlockM) * 4 > kMaxRange)
        return fail(
            StatusCode::kErrorInvalidSize,
            "K-block-major scale_a: this kernel reads it with 32-bit byte offsets, and its " +
                std::to_string(args.scale_a.span(Granularity::kABlockM)) +
                " floats pass 2^31 bytes: pass it row-major, or split the GEMM along K");
    }
    if constexpr (kHardwareMx) {
      // The E8M0 bytes are read through one buffer range per operand: 32-bit offsets.
      std::int64_t const a_bytes = std::int64_t{args.scale_a.extent} * args.scale_a.cols;
      std::int64_t const b_bytes = std::int64_t{args.scale_b.extent} * args.scale_b.cols;
      if (a_bytes > kMaxRange || b_bytes > kMaxRange)
        return fail(StatusCode::kErrorInvalidSize,
                    "MX-32 scales: this kernel reads each E8M0 array with 32-bit offsets, and A's "
                    "has " +
                        std::to_string(a_bytes) + ", B's " + std::to_string(b_bytes) +
                        " bytes (at most 2^31 - 1 each): split the GEMM along M or N");
    }
    return Status::success();
  }

  // ---- LDS ------------------------------------------------------------------------------------
  using LdsLayoutA =
      XorSwizzledLayout<Policy::kBlockM, Policy::kBlockM, Policy::kBlockM, Policy::kBlockK>;
  using LdsLayoutB = XorSwizzledLayout<Policy::kBlockN, Policy::kWaveTileN, 32, Policy::kBlockK>;
  static_assert(LdsLayoutB::kSlotsPerPart * kClusters == Policy::kBlockN,
                "one B part per cluster: 32 rows of every wave column");
  /// Blockwise: each wave's scales of one K tile, one float per row (A) and column (B) of its
  /// wave tile.
  static constexpr int kScaleRowsA = kKBlockedScales ? Policy::kWaveTileM : 0;
  static constexpr int kScaleColsB = kKBlockedScales ? Policy::kWaveTileN : 0;
  static constexpr int kScaleFloats = kScaleRowsA + kScaleColsB;  // per wave and stage
  struct TileStorage {
    std::uint8_t a[kStages][LdsLayoutA::kBytes];  // [kBlockM][kBlockK] swizzled, per stage
    std::uint8_t b[kStages][LdsLayoutB::kBytes];  // [kBlockN][kBlockK] swizzled, per stage
  };
  struct ScaledTileStorage : TileStorage {
    // [stage][wave][kWaveTileM A rows, then kWaveTileN B columns] fp32 (a direct-to-LDS dword
    // per lane)
    float scales[kStages * kWaves * kScaleFloats];
  };
  using SharedStorage = std::conditional_t<kKBlockedScales, ScaledTileStorage, TileStorage>;
  static_assert(sizeof(SharedStorage) <= Arch::kLdsBytes,
                "the LDS stages do not fit this target's LDS: shrink the tile, BlockK or Stages");

  // ---- loads and reads per K tile -------------------------------------------------------------
  /// Direct-to-LDS loads per thread: A tile, one B part.
  static constexpr int kLoadsA = Policy::kBlockM / kSlotsPerWaveLoad / kWaves;
  static constexpr int kLoadsBPart = LdsLayoutB::kSlotsPerPart / kSlotsPerWaveLoad / kWaves;
  static constexpr int kLoadsPerTile = kLoadsA + kClusters * kLoadsBPart;
  /// ds_read_b128 per cluster of B (2 atoms x kReadsPerFragment).
  static constexpr int kReadsBCluster = kClusterAtomsN * kReadsPerFragment;
  /// MFMAs per cluster.
  static constexpr int kMfmasPerCluster = kClusterAtomsN * kAtomsM * kMmasPerAtom;
  static_assert(kReadsBCluster <= kMfmasPerCluster,
                "the next cluster's reads go between this cluster's MFMAs: at most one per MFMA");

  // ---- Blockwise scales -----------------------------------------------------------------------
  /// Blockwise: whether one B scale block spans the wave tile (one B scale per wave and tile).
  FP8GEMM_HOST_DEVICE static constexpr bool one_scale_b() {
    if constexpr (kKBlockedScales) {
      return Granularity::kBBlockN % Policy::kWaveTileN == 0;
    } else {
      return false;
    }
  }
  static constexpr bool kOneScaleB = one_scale_b();
  /// Blockwise with one B scale per wave tile: the two scales are folded into one multiplier per
  /// A row, s_a · s_b, formed once per K tile (fold_products), when the wave's products are all
  /// normal (FoldOrTwice). Otherwise (a B scale per B atom) the products would be one per output
  /// element, no fewer operations than scaling twice.
  static constexpr bool kFoldScales = kKBlockedScales && kOneScaleB;
  /// Blockwise: direct-to-LDS dword loads of the wave's scales of one K tile (a row of A or a
  /// column of B per lane; one load of B's when a scale block spans the wave tile), issued last in
  /// L_0 of the tile before (issue_scale_load).
  static constexpr int kScaleLoadsA = kScaleRowsA / kWaveSize;
  static constexpr int kScaleLoadsB = kOneScaleB ? 1 : kScaleColsB / kWaveSize;
  static constexpr int kScaleLoads = kScaleLoadsA + kScaleLoadsB;
  /// Blockwise, folded: the vote reads the A scales of the rows each lane loaded (row
  /// 64h + lane of the wave tile, h < kScaleLoadsA: every row of the wave once) and the B
  /// scale, 4 bytes each (read_vote_scales).
  static constexpr int kVoteReadBytes = kFoldScales ? 4 * (kScaleLoadsA + 1) : 0;
  static_assert(kScaleRowsA % kWaveSize == 0 && kScaleColsB % kWaveSize == 0,
                "Blockwise: whole wave loads of scale rows and columns");
  /// Blockwise: LDS bytes one lane reads for a tile's scales (read_block_scales).
  static constexpr int kScaleReadBytes = kKBlockedScales ? kAtomsM * 16 +
                                                               (kFoldScales  ? 0
                                                                : kOneScaleB ? 16
                                                                             : kAtomsN * 4) +
                                                               kVoteReadBytes
                                                         : 0;

  // ---- where a lane's loads go ----------------------------------------------------------------
  /// The k (in the row) of the bytes lane `lane` loads into slot s (Operands::make).
  template <class Layout>
  FP8GEMM_HOST_DEVICE static constexpr int load_k(int s, int lane) {
    int const x = kLoadBytes * (lane % kLanesPerSlot);  // byte in the slot
    return 16 * ((x / 16) ^ Layout::swizzle(s)) + x % 16;
  }
  /// First slot (LDS row) of A load j / B part p load q of wave `wave`: kSlotsPerWaveLoad rows
  /// per wave load.
  FP8GEMM_HOST_DEVICE static constexpr int a_slot0(int j, int wave) {
    return (j * kWaves + wave) * kSlotsPerWaveLoad;
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_slot0(int p, int q, int wave) {
    return p * LdsLayoutB::kSlotsPerPart + (q * kWaves + wave) * kSlotsPerWaveLoad;
  }
  /// Blockwise: first float of the wave's scales in stage `stage` of lds.scales.
  FP8GEMM_HOST_DEVICE static constexpr int scale_slot(int stage, int wave) {
    return (stage * kWaves + wave) * kScaleFloats;
  }

  // ---- where a lane's reads come from ---------------------------------------------------------
  /// Per lane: the LDS byte offset of chunk c (k = 16 * (lane / 16) + 64c) of its row in atom 0 of
  /// A, and in atom 0 of B cluster 0, stage 0. Every other atom, cluster and stage adds a
  /// compile-time immediate, because the swizzle of a row depends only on lane % 16 here
  /// (reads_match_layout checks it against the layouts for every lane).
  struct ReadBase {
    std::uint32_t a[kReadsPerFragment];
    std::uint32_t b[kReadsPerFragment];
  };
  FP8GEMM_HOST_DEVICE static constexpr ReadBase read_base(int lane, int wave_m, int wave_n) {
    int const r = lane % 16, swz = (r / 2) % LdsLayoutA::kChunks;
    ReadBase rb{};
    for (int c = 0; c < kReadsPerFragment; ++c) {
      int const x = lane / 16 + 4 * c;  // logical 16-byte chunk of the row
      rb.a[c] = static_cast<std::uint32_t>((wave_m * Policy::kWaveTileM + r) * kSlotBytes +
                                           16 * (x ^ swz));
      rb.b[c] = static_cast<std::uint32_t>((wave_n * 32 + r) * kSlotBytes + 16 * (x ^ swz));
    }
    return rb;
  }
  /// Immediates: A atom i; B cluster cl, atom q (stage 0; the stage goes into the address).
  FP8GEMM_HOST_DEVICE static constexpr int a_imm(int stage, int i) {
    return stage * LdsLayoutA::kBytes + i * Atom::kM * kSlotBytes;
  }
  FP8GEMM_HOST_DEVICE static constexpr int b_imm(int stage, int cl, int q) {
    return stage * LdsLayoutB::kBytes +
           (cl * LdsLayoutB::kSlotsPerPart + q * Atom::kN) * kSlotBytes;
  }
  /// Row and k of read c of lane `lane` in an atom: the atom's own fragment map when it takes the
  /// whole tile K (gfx950); else row lane % 16, k = 16 * (lane / 16) + 64c, whose bytes
  /// 8m .. 8m + 7 feed MFMA m of the atom's kMmasPerAtom. Formula (gfx942, kK = 32, one read):
  ///   MFMA m, lane l, byte b (the MFMA's k = 8 * (l / 16) + b) multiplies tile k
  ///   16 * (l / 16) + 8m + b,
  /// a bijection of (m, MFMA k) onto the tile's 64 k, the same for A and B: the sum over the
  /// tile's K is unchanged (promotion, if any, is once per tile: BufferLdsPingPongSupports).
  FP8GEMM_HOST_DEVICE static constexpr int read_row(int lane, int c) {
    return kMmasPerAtom == 1 ? Atom::a_row(lane, c) : lane % 16;
  }
  FP8GEMM_HOST_DEVICE static constexpr int read_k(int lane, int c) {
    return kMmasPerAtom == 1 ? Atom::a_k(lane, c) : 16 * (lane / 16) + 64 * c;
  }
  static_assert(kMmasPerAtom == 1 || (Atom::a_row(17, 0) == 1 && Atom::a_k(17, 0) == 8 &&
                                      Atom::b_col(17, 0) == 1 && Atom::b_k(17, 0) == 8),
                "kMmasPerAtom > 1: the atom takes 8 bytes of row lane % 16 at k = 8 * (lane / 16)");
  FP8GEMM_HOST_DEVICE static constexpr bool reads_match_layout() {
    for (int w = 0; w < kWaves; ++w) {
      int const wm = w / Policy::kWavesN, wn = w % Policy::kWavesN;
      for (int lane = 0; lane < kWaveSize; ++lane) {
        ReadBase const rb = read_base(lane, wm, wn);
        for (int c = 0; c < kReadsPerFragment; ++c) {
          for (int i = 0; i < kAtomsM; ++i)
            if (rb.a[c] + a_imm(0, i) !=
                LdsLayoutA::offset(wm * Policy::kWaveTileM + i * Atom::kM + read_row(lane, c),
                                   read_k(lane, c)))
              return false;
          for (int cl = 0; cl < kClusters; ++cl)
            for (int q = 0; q < kClusterAtomsN; ++q)
              if (rb.b[c] + b_imm(0, cl, q) !=
                  LdsLayoutB::offset(wn * Policy::kWaveTileN +
                                         (cl * kClusterAtomsN + q) * Atom::kN + read_row(lane, c),
                                     read_k(lane, c)))
                return false;
        }
      }
    }
    return true;
  }
  static_assert(reads_match_layout(),
                "fragment read offsets (base + immediate) must equal the LDS layouts' offsets");
  static_assert(a_imm(1, kAtomsM - 1) < 65536 &&
                    b_imm(1, kClusters - 1, kClusterAtomsN - 1) < 65536,
                "ds_read immediates are 16 bits");

  /// Per thread: where its loads go in LDS and come from in global memory.
  struct Operands {
    arch::BufferRange a;  // A rows [m0, m0 + valid) from k of tile 0: rows past M read as zero
    arch::BufferRange b;  // B rows [n0, n0 + valid)
    int full;             // tiles with data; later ones reload the last full tile (never read)
    int k_tile_begin;
    int wave;
    int lane;
    std::uint32_t voff_a[kLoadsA];                 // row * lda + 16 * chunk, per A load
    std::uint32_t voff_b[kClusters][kLoadsBPart];  // per B part and load
    // MX-32 in hardware: the index of this lane's E8M0 byte of K tile 0 per A / B atom, row *
    // cols + lane / kM (the MX block of the atom's K the lane's byte scales). Rows past M / N
    // take the last row's byte: they only scale accumulator rows (columns) that are never stored.
    std::uint32_t mx_a[kHardwareMx ? kAtomsM : 1];
    std::uint32_t mx_b[kHardwareMx ? kAtomsN : 1];
    arch::BufferRange mx_a_range;  // MX-32: the E8M0 bytes of A, [extent][cols]
    arch::BufferRange mx_b_range;
    // Blockwise: the A scales ([row blocks][cols] fp32, or K-block-major: ScaleView::ld) and the
    // byte offset of the K-block-0 scale of row 64h + lane of the wave tile per scale load h (rows
    // past M: the last row's); K block kb's is sc_a_kstride · kb further (1, or A's ld).
    arch::BufferRange sc_a_range;
    std::uint32_t sc_a_voff[kScaleLoadsA > 0 ? kScaleLoadsA : 1];
    std::uint32_t sc_a_kstride = 1;
    arch::BufferRange sc_b_range;  // the same for B's columns
    std::uint32_t sc_b_voff[kScaleLoadsB > 0 ? kScaleLoadsB : 1];

    FP8GEMM_DEVICE static Operands make(Arguments const& args, int m0, int n0, int k_tile_begin,
                                        int full, int wave, int lane) {
      Operands o{};
      std::int64_t const k0 = std::int64_t(k_tile_begin) * Policy::kBlockK;
      int const a_rows = args.a.rows - m0 < Policy::kBlockM ? args.a.rows - m0 : Policy::kBlockM;
      int const b_rows = args.b.rows - n0 < Policy::kBlockN ? args.b.rows - n0 : Policy::kBlockN;
      // num_records = valid rows * ld: a row's loads (voffset = row * ld + 16 * chunk, the K
      // offset in soffset, outside the check) are in range exactly when the row is valid.
      o.a = {reinterpret_cast<std::uint8_t const*>(args.a.data) + m0 * args.a.ld + k0,
             static_cast<std::uint32_t>(a_rows * args.a.ld)};
      o.b = {reinterpret_cast<std::uint8_t const*>(args.b.data) + n0 * args.b.ld + k0,
             static_cast<std::uint32_t>(b_rows * args.b.ld)};
      o.full = full;
      o.k_tile_begin = k_tile_begin;
      o.wave = wave;
      o.lane = lane;
      // Lane l of a load fills kLoadBytes of its wave's block: slot s0 + l / kLanesPerSlot, byte
      // x = kLoadBytes * (l % kLanesPerSlot) of it, in stored chunk x / 16, which holds logical
      // chunk (x / 16) ^ swizzle(slot) of the slot's row.
      FP8GEMM_UNROLL
      for (int j = 0; j < kLoadsA; ++j) {
        int const s = a_slot0(j, wave) + lane / kLanesPerSlot;
        o.voff_a[j] = static_cast<std::uint32_t>(LdsLayoutA::row_of_slot(s) * args.a.ld +
                                                 load_k<LdsLayoutA>(s, lane));
      }
      FP8GEMM_UNROLL
      for (int p = 0; p < kClusters; ++p) {
        FP8GEMM_UNROLL
        for (int q = 0; q < kLoadsBPart; ++q) {
          int const s = b_slot0(p, q, wave) + lane / kLanesPerSlot;
          o.voff_b[p][q] = static_cast<std::uint32_t>(LdsLayoutB::row_of_slot(s) * args.b.ld +
                                                      load_k<LdsLayoutB>(s, lane));
        }
      }
      if constexpr (kHardwareMx) {
        auto range = [](ScaleView<Granularity> const& v) {
          return arch::BufferRange{reinterpret_cast<std::uint8_t const*>(v.data),
                                   static_cast<std::uint32_t>(v.extent * v.cols)};
        };
        o.mx_a_range = range(args.scale_a);
        o.mx_b_range = range(args.scale_b);
        int const wm = wave / Policy::kWavesN, wn = wave % Policy::kWavesN;
        FP8GEMM_UNROLL
        for (int i = 0; i < kAtomsM; ++i) {
          int row = m0 + wm * Policy::kWaveTileM + i * Atom::kM + lane % Atom::kM;
          row = row < args.scale_a.extent ? row : args.scale_a.extent - 1;
          o.mx_a[i] = static_cast<std::uint32_t>(row * args.scale_a.cols + lane / Atom::kM);
        }
        FP8GEMM_UNROLL
        for (int j = 0; j < kAtomsN; ++j) {
          int row = n0 + wn * Policy::kWaveTileN + j * Atom::kN + lane % Atom::kN;
          row = row < args.scale_b.extent ? row : args.scale_b.extent - 1;
          o.mx_b[j] = static_cast<std::uint32_t>(row * args.scale_b.cols + lane / Atom::kN);
        }
      }
      if constexpr (kKBlockedScales) {
        // Operand rows [first, first + count) of a wave tile, one per lane and load.
        // The range starts at the wave tile's first row block and ends at its last (offsets
        // stay 32-bit whatever the size of the scale array).
        // (rs, ks: the array's row and K-block strides, (cols, 1) row-major, (1, ld) K-block-major)
        auto scale_loads = [lane](ScaleView<Granularity> const& v, int rows_per_block, int first,
                                  arch::BufferRange& range, auto& voff) {
          constexpr int kLoads = static_cast<int>(sizeof(voff) / sizeof(voff[0]));
          auto clamp = [&v](int row) { return row < v.extent ? row : v.extent - 1; };
          std::int64_t const rs = v.ld == 0 ? v.cols : 1, ks = v.k_stride();
          int const block0 = clamp(first) / rows_per_block;
          int const blocks = clamp(first + kLoads * kWaveSize - 1) / rows_per_block - block0 + 1;
          range = {reinterpret_cast<std::uint8_t const*>(v.data + block0 * rs),
                   static_cast<std::uint32_t>(((blocks - 1) * rs + (v.cols - 1) * ks + 1) * 4)};
          FP8GEMM_UNROLL
          for (int h = 0; h < kLoads; ++h) {
            int const block = clamp(first + h * kWaveSize + lane) / rows_per_block;
            voff[h] = static_cast<std::uint32_t>((block - block0) * rs * 4);
          }
        };
        o.sc_a_kstride = static_cast<std::uint32_t>(args.scale_a.k_stride());
        int const wm = wave / Policy::kWavesN, wn = wave % Policy::kWavesN;
        scale_loads(args.scale_a, Granularity::kABlockM, m0 + wm * Policy::kWaveTileM, o.sc_a_range,
                    o.sc_a_voff);
        scale_loads(args.scale_b, Granularity::kBBlockN, n0 + wn * Policy::kWaveTileN, o.sc_b_range,
                    o.sc_b_voff);
      }
      return o;
    }
    /// Blockwise: soffset of the A scales of K tile t (clamped as mx_offset).
    FP8GEMM_DEVICE std::uint32_t scale_offset(int t) const {
      int const clamped = t < 0 ? 0 : (t < full ? t : full - 1);
      return static_cast<std::uint32_t>(
          4 * ((k_tile_begin + clamped) * Policy::kBlockK / Granularity::kBlockK));
    }
    /// soffset of K tile t: its k from tile 0. Tiles past the last full one (loaded to keep the
    /// schedule's counts, never read) reload it, so no load reads past K.
    FP8GEMM_DEVICE std::uint32_t k_offset(int t) const {
      return static_cast<std::uint32_t>(t < full ? t : full - 1) * Policy::kBlockK;
    }
    /// soffset of the E8M0 bytes of K tile t (kMxBlocksPerTile per row and tile); tiles before the
    /// first (the prologue's) and past the last full one read the nearest full tile's.
    FP8GEMM_DEVICE std::uint32_t mx_offset(int t) const {
      int const clamped = t < 0 ? 0 : (t < full ? t : full - 1);
      return static_cast<std::uint32_t>(kMxBlocksPerTile * (k_tile_begin + clamped));
    }
  };
};

}  // namespace fp8gemm
