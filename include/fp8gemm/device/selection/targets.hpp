// SPDX-License-Identifier: MIT
/// AutoGemm's targets (device layer): per target its candidate policies for the element types
/// (in the fixed order that breaks the model's ties: smaller tiles first, later additions
/// appended), each with a short
/// name and its tile class's compute efficiency, the machine the model plans for, the SM / CU
/// count used when no device can be asked, the tier-3 default, and its measured table.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "fp8gemm/device/selection/model.hpp"
#include "fp8gemm/device/selection/sm90_h200_table.hpp"
#include "fp8gemm/kernel/stream_k.hpp"
#include "fp8gemm/policy/default_policies.hpp"
#include "fp8gemm/quant/granularity.hpp"

namespace fp8gemm::selection {

/// A candidate: a policy, the short name FP8GEMM_FORCE_POLICY and table entries may use, and
/// the fraction of the target's peak its tile class computes at on full tiles (per scale
/// granularity and epilogue class: a policy that stores from registers, or holds scales beside
/// its accumulators, is slower there).
template <class PolicyT, class Info>
struct Candidate : Info {
  using Policy = PolicyT;
};

/// Whether a candidate is for Blockwise only (its Info's kBlockwiseOnly), or for the other
/// granularities only (kNotBlockwise); neither where its Info says nothing.
template <class C, class = void>
struct IsBlockwiseOnly : std::false_type {};
template <class C>
struct IsBlockwiseOnly<C, std::void_t<decltype(C::kBlockwiseOnly)>>
    : std::bool_constant<C::kBlockwiseOnly> {};
template <class C, class = void>
struct IsNotBlockwise : std::false_type {};
template <class C>
struct IsNotBlockwise<C, std::void_t<decltype(C::kNotBlockwise)>>
    : std::bool_constant<C::kNotBlockwise> {};
/// AutoGroupedGemm's flags: its rows rule takes the candidate for per-tensor scales only
/// (kRowsRulePerTensorOnly); its few-tiles rule may take it (kFewTiles).
template <class C, class = void>
struct IsRowsRulePerTensorOnly : std::false_type {};
template <class C>
struct IsRowsRulePerTensorOnly<C, std::void_t<decltype(C::kRowsRulePerTensorOnly)>>
    : std::bool_constant<C::kRowsRulePerTensorOnly> {};
template <class C, class = void>
struct IsFewTiles : std::false_type {};
template <class C>
struct IsFewTiles<C, std::void_t<decltype(C::kFewTiles)>> : std::bool_constant<C::kFewTiles> {};
/// Whether candidate C takes scales of Granularity (by those two flags).
template <class C, class Granularity>
constexpr bool takes_granularity() {
  return (!IsBlockwiseOnly<C>::value || IsBlockwise<Granularity>::value) &&
         (!IsNotBlockwise<C>::value || !IsBlockwise<Granularity>::value);
}

/// One efficiency whatever the classes.
template <int Percent>
struct FlatEfficiency {
  static constexpr double efficiency(GranularityClass, EpilogueClass) { return Percent / 100.0; }
};

/// A candidate the model never picks (kModelled = false; an Info without kModelled is modelled):
/// its efficiency is not known, so only a measured table entry chooses it (or a caller who names
/// it).
struct TableOnly {
  static constexpr bool kModelled = false;
  static constexpr double efficiency(GranularityClass, EpilogueClass) { return 0.9; }
};

/// NVIDIA Hopper (sm_90a TMA + WGMMA policies; the portable mma.sync policy last, for what they
/// refuse, e.g. B as [K, N]). Efficiencies: ratios of the measurements (docs/benchmark.md) against
/// cuBLASLt at large shapes (Sm90WgmmaLarge 0.99-1.02x = 1.00; Sm90WgmmaDefault 0.96-1.00x =
/// 0.97, Blockwise 0.85-0.86x against Large's 0.96x = 0.89; Large with an epilogue it stores from
/// registers: below Default, 0.95, docs/reference.md). The small-M classes are rarely bound by
/// compute (their FLOPs are a small part of their time): SmallM 0.70 and Decode 0.60, not
/// measured; MediumM 0.65, fitted (below: at 0.85 the model sent M = 129-2048 with wide N to its
/// 128 x 64 tiles, up to 1.8x slower than the large tiles).
/// Sm90Default (mma.sync) 0.35: "slow", not measured against the others at one shape.
struct Sm90Target {
  static constexpr char const* kName = "sm90";
  static constexpr int kDefaultSmCount = 132;  // H200 / H100 SXM
  /// H200 SXM: 1,979 TFLOP/s dense FP8 at boost (NVIDIA's datasheet, 3,958 with sparsity), power
  /// capped to about 1,300 sustained on long GEMMs (docs/benchmark.md's results table: 1,189-1,336
  /// TFLOP/s for Sm90WgmmaLarge at the large per-tensor shapes), which the model takes; HBM3e 4.8
  /// TB/s (datasheet); L2 50 MiB; L2 -> SM about 64 B per clock per SM at ~1.4 GHz sustained on 132
  /// SMs = 12 TB/s (an assumption); 224 KiB in flight per SM for its HBM share: fitted so that the
  /// decode policies rank as measured (docs/benchmark.md); a split-K call's fixed cost 12 us
  /// and 1 us per wave of tiles for its first loads and last stores (about a DRAM round trip and
  /// a store), fitted with MediumMInfo's 0.65 to the H200 sweep in bench/results/h200: the model's
  /// picks went from 1.085 / 1.060 to 1.031 / 1.024 times the best candidate, geomean, on each
  /// half of the shape set's (N, K) pairs, the worst from 2.6 to 1.65 times
  /// (docs/selection.md#the-model-against-the-sweep).
  static constexpr MachineModel kMachine = {1.3e15,       4.8e12, 12e12, 50.0 * 1024 * 1024,
                                            224.0 * 1024, 12e-6,  1e-6};
  static constexpr char const* kMachineNote =
      "H200 constants (docs/benchmark.md measurements, datasheet)";
  static constexpr char const* kDefaultCandidate = "sm90_wgmma_default";

  /// The swapped decode tiles take Blockwise scales (up to 64 columns) but ran slower than
  /// Sm90WgmmaSmallM at M = 1-64 (docs/performance.md#sm90-swapped-blockwise), so they are not
  /// AutoGemm's candidates for them: Blockwise decode keeps Sm90WgmmaSmallM (kNotBlockwise).
  struct NotForBlockwise {
    static constexpr bool kNotBlockwise = true;
  };
  struct DecodeInfo8 : FlatEfficiency<60>, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_decode8";
  };
  struct DecodeInfo16 : FlatEfficiency<60>, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_decode16";
  };
  struct DecodeInfo32 : FlatEfficiency<60>, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_decode32";
  };
  struct SmallMInfo : FlatEfficiency<70> {
    static constexpr char const* kShortName = "sm90_wgmma_small_m";
  };
  struct MediumMInfo : FlatEfficiency<65> {
    static constexpr char const* kShortName = "sm90_wgmma_medium_m";
  };
  struct DefaultInfo {
    static constexpr char const* kShortName = "sm90_wgmma_default";
    static constexpr double efficiency(GranularityClass g, EpilogueClass) {
      return g == GranularityClass::kBlockwise ? 0.89 : 0.97;
    }
  };
  /// The 128 x 128 tile: six stages for per-tensor and per-channel scales, five for Blockwise
  /// (Sm90WgmmaDefaultBlockwise, where the scale ring fits beside bf16 C's staging). One short
  /// name, so a table entry names the 128 x 128 tile whatever the granularity.
  struct DefaultNotBlockwiseInfo : DefaultInfo, NotForBlockwise {};
  struct DefaultBlockwiseInfo : DefaultInfo {
    static constexpr bool kBlockwiseOnly = true;
  };
  struct LargeInfo {
    static constexpr char const* kShortName = "sm90_wgmma_large";
    /// Its TMA-store epilogue takes identity, and GELU-tanh with per-tensor scales
    /// (WgmmaEpilogueChoice); other activations store from registers.
    static constexpr double efficiency(GranularityClass g, EpilogueClass e) {
      bool const tma_store = e == EpilogueClass::kIdentity ||
                             (e == EpilogueClass::kGeluTanh && g == GranularityClass::kPerTensor);
      return tma_store ? 1.0 : 0.95;
    }
  };
  struct PortableInfo : FlatEfficiency<35> {
    static constexpr char const* kShortName = "sm90_default";
  };
  /// Table-only tiles (GPU-tested in tests/gpu/gemm_wgmma_gpu_test.cu): swapped operands with 128
  /// rows of A (narrow N, or M = 65-128), 256 x 64 (narrow N at large M), 128 x 192 (wide N where
  /// 256 leaves a poor last wave), and the ping-pong schedule at 128 x 128 and 64 x 256. Not
  /// 256 x 128 (DeepGEMM's Blockwise tile): with the scale ring and checked tiles, alone or A
  /// multicast, it ran 5-14 % behind 128 x 256 at every shape timed
  /// (docs/performance.md#sm90-256x128-blockwise).
  struct Decode128Info : TableOnly {
    static constexpr char const* kShortName = "sm90_wgmma_decode128";
  };
  struct Tile256x64Info : TableOnly {
    static constexpr char const* kShortName = "sm90_wgmma_256x64";
  };
  struct Tile128x192Info : TableOnly {
    static constexpr char const* kShortName = "sm90_wgmma_128x192";
  };
  struct PingPong128Info : TableOnly {
    static constexpr char const* kShortName = "sm90_wgmma_pingpong_128x128";
  };
  struct PingPong64x256Info : TableOnly {
    static constexpr char const* kShortName = "sm90_wgmma_pingpong_64x256";
  };
  /// Two-consumer swapped tiles (Sm90WgmmaMidM: 128 rows of N, the wgmma N following M) for
  /// M between the 128-row tiles' multiples, which those pad: 80, 96, 104 and 112 columns hold
  /// M = 160, 192, 208 and 224 in two tile rows. Modelled at 0.90 of peak: with that the model's
  /// estimates of the 104-column tile were as far from its times as Default's at 0.97 (1.03x,
  /// geomean over M = 200 of the shape set), and its picks over the H100 sweeps at M = 160-512
  /// went from 1.112 to 1.059 times the best candidate (docs/performance.md#sm90-mid-m).
  /// The model takes them above M = 128 only (kModelMinM): below, `Sm90WgmmaMediumM`'s fitted
  /// 0.65 would lose to their 0.90 while no measurement compares them there. Per-tensor and
  /// per-channel (NotForBlockwise: their Blockwise form needs BlockMCols <= 64).
  struct MidMInfo : FlatEfficiency<90>, NotForBlockwise {
    static constexpr int kModelMinM = 129;
  };
  struct MidM80Info : MidMInfo {
    static constexpr char const* kShortName = "sm90_wgmma_mid_m80";
  };
  struct MidM96Info : MidMInfo {
    static constexpr char const* kShortName = "sm90_wgmma_mid_m96";
  };
  struct MidM104Info : MidMInfo {
    static constexpr char const* kShortName = "sm90_wgmma_mid_m104";
  };
  struct MidM112Info : MidMInfo {
    static constexpr char const* kShortName = "sm90_wgmma_mid_m112";
  };

  /// Stream-K (StreamK<P>: whole waves of tiles, then the partial wave's tiles and one wave
  /// before them cut evenly over the SMs, kernel/stream_k.hpp) on the 128 x 128, 128 x 192 and
  /// 128 x 256 tiles: for shapes whose tiles leave SMs idle in a partial last wave. Table-only,
  /// and only with a workspace (the cut tiles' FP32 partial sums): AutoGemm given none lets the
  /// model choose among the others.
  struct StreamKInfo : TableOnly {};
  struct DefaultStreamKInfo : StreamKInfo, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_default_stream_k";
  };
  struct DefaultBlockwiseStreamKInfo : StreamKInfo {
    static constexpr char const* kShortName = "sm90_wgmma_default_stream_k";
    static constexpr bool kBlockwiseOnly = true;
  };
  struct Tile128x192StreamKInfo : StreamKInfo {
    static constexpr char const* kShortName = "sm90_wgmma_128x192_stream_k";
  };
  struct LargeStreamKInfo : StreamKInfo {
    static constexpr char const* kShortName = "sm90_wgmma_large_stream_k";
  };

  /// 128 x 144 and 128 x 160 (two n72 / n80 chunks, C stored from registers): tiles whose width
  /// divides the N of layers where 128, 192 and 256 leave a partial last wave (N = 576, 5120,
  /// 9216, 10240, 18432 at M = 256-8192: about 0.97 of whole waves). Table-only: at their shapes
  /// 1.03-1.13x the best of the others (H100), elsewhere 0.65-0.95x
  /// (docs/performance.md#sm90-wide-n-tiles). Per-tensor and per-channel.
  struct Tile128x144Info : TableOnly, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_128x144";
  };
  struct Tile128x160Info : TableOnly, NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_128x160";
  };

  template <class EA, class EB>
  using Candidates = std::tuple<
      Candidate<Sm90WgmmaDecode<8, EA, EB>, DecodeInfo8>,
      Candidate<Sm90WgmmaDecode<16, EA, EB>, DecodeInfo16>,
      Candidate<Sm90WgmmaDecode<32, EA, EB>, DecodeInfo32>,
      Candidate<Sm90WgmmaSmallM<EA, EB>, SmallMInfo>,
      Candidate<Sm90WgmmaMediumM<EA, EB>, MediumMInfo>,
      Candidate<Sm90WgmmaDefault<EA, EB>, DefaultNotBlockwiseInfo>,
      Candidate<Sm90WgmmaDefaultBlockwise<EA, EB>, DefaultBlockwiseInfo>,
      Candidate<Sm90WgmmaLarge<EA, EB>, LargeInfo>, Candidate<Sm90Default<EA, EB>, PortableInfo>,
      Candidate<Sm90WgmmaDecode<128, EA, EB>, Decode128Info>,
      Candidate<WgmmaTilePolicy<256, 64, 2, 4, EA, EB>, Tile256x64Info>,
      Candidate<WgmmaTilePolicy<128, 192, 2, 4, EA, EB>, Tile128x192Info>,
      Candidate<WgmmaTilePolicy<128, 128, 2, 6, EA, EB, WgmmaSchedule::kPingPong>, PingPong128Info>,
      Candidate<WgmmaTilePolicy<64, 256, 2, 5, EA, EB, WgmmaSchedule::kPingPong>,
                PingPong64x256Info>,
      Candidate<Sm90WgmmaMidM<80, EA, EB>, MidM80Info>,
      Candidate<Sm90WgmmaMidM<96, EA, EB>, MidM96Info>,
      Candidate<Sm90WgmmaMidM<104, EA, EB>, MidM104Info>,
      Candidate<Sm90WgmmaMidM<112, EA, EB>, MidM112Info>,
      Candidate<StreamK<Sm90WgmmaDefault<EA, EB>>, DefaultStreamKInfo>,
      Candidate<StreamK<Sm90WgmmaDefaultBlockwise<EA, EB>>, DefaultBlockwiseStreamKInfo>,
      Candidate<StreamK<WgmmaTilePolicy<128, 192, 2, 4, EA, EB>>, Tile128x192StreamKInfo>,
      Candidate<StreamK<Sm90WgmmaLarge<EA, EB>>, LargeStreamKInfo>,
      Candidate<WgmmaTilePolicy<128, 144, 2, 6, EA, EB>, Tile128x144Info>,
      Candidate<WgmmaTilePolicy<128, 160, 2, 6, EA, EB>, Tile128x160Info>>;

  static constexpr TableView table() { return sm90_h200_table(); }

  /// GroupedGemm's candidates (AutoGroupedGemm), in order: the first that compiles for the types
  /// and whose kMaxExpectedM holds the expected rows per group (and kMaxK, where it has one, the
  /// call's K) runs. Measured with fp8gemm_grouped_bench (docs/grouped.md): at about 2 rows per
  /// expert the swapped 16-column decode tile moves the most weight bytes per second, at about 32
  /// the 64-column one (H200); above 64 rows the 128 x 256 tile, ahead of 128 x 128 in every
  /// contiguous case measured with K >= 768 (H100, bf16 C, 96-8192 rows per group: 1.01-1.91x),
  /// except per-tensor at short K: 128 x 128 3-6 % ahead at K = 512, 5 % behind at 1536 (so up to
  /// K = 1024). Masked calls with under two waves of 128 x 256 tiles lose up to 2.2 % on it;
  /// where its tiles fill at most half the SMs and 128 x 128's fit one wave, 128 x 128 runs
  /// instead (AutoGroupedGemm's few-tiles rule, GroupedDefaultInfo). Blockwise takes no swapped
  /// tile (NotForBlockwise: slower): 64 x 64 below 64 rows (the dense table's choice).
  struct GroupedDecode16Info : NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_decode16";
    static constexpr int kMaxExpectedM = 16;
  };
  struct GroupedDecodeInfo : NotForBlockwise {
    static constexpr char const* kShortName = "sm90_wgmma_decode64";
    static constexpr int kMaxExpectedM = 64;
  };
  struct GroupedSmallMInfo {
    static constexpr char const* kShortName = "sm90_wgmma_small_m";
    static constexpr int kMaxExpectedM = 64;
  };
  /// 128 x 128: by rows only per-tensor up to K = 1024; for every granularity where the rows
  /// rule's 128 x 256 tiles would fill at most half the SMs and its own one wave (kFewTiles;
  /// measured: docs/grouped.md#few-tiles).
  struct GroupedDefaultInfo {
    static constexpr char const* kShortName = "sm90_wgmma_default";
    static constexpr int kMaxExpectedM = INT32_MAX;
    static constexpr int kMaxK = 1024;
    static constexpr bool kRowsRulePerTensorOnly = true;
    static constexpr bool kFewTiles = true;
  };
  struct GroupedLargeInfo {
    static constexpr char const* kShortName = "sm90_wgmma_large";
    static constexpr int kMaxExpectedM = INT32_MAX;
  };
  template <class EA, class EB>
  using GroupedCandidates = std::tuple<Candidate<Sm90WgmmaDecode<16, EA, EB>, GroupedDecode16Info>,
                                       Candidate<Sm90WgmmaDecode<64, EA, EB>, GroupedDecodeInfo>,
                                       Candidate<Sm90WgmmaSmallM<EA, EB>, GroupedSmallMInfo>,
                                       Candidate<Sm90WgmmaDefault<EA, EB>, GroupedDefaultInfo>,
                                       Candidate<Sm90WgmmaLarge<EA, EB>, GroupedLargeInfo>>;
  static constexpr bool kGroupedMeasured = true;
};

/// AMD CDNA4 (gfx950, MI355X): the two named policies. Nothing is measured on this hardware
/// here: the model's constants are AMD's published MI355X peaks, and the efficiencies follow the
/// policies' own comments (Cdna4KBlocked for Blockwise, Cdna4Default for MX-32 and the rest).
struct Cdna4Target {
  static constexpr char const* kName = "cdna4";
  static constexpr int kDefaultSmCount = 256;  // MI355X CUs
  /// AMD's published MI355X peaks (unmeasured here): 5.0 PFLOP/s dense FP8, HBM3E 8 TB/s, 256 MiB
  /// Infinity Cache; its bandwidth assumed to be MI300X's published 17.2 TB/s; 64 KiB in flight
  /// per CU and a 3 us reduction launch are assumptions; no per-wave cost (nothing to fit it to).
  static constexpr MachineModel kMachine = {5.0e15,      8.0e12, 17.2e12, 256.0 * 1024 * 1024,
                                            64.0 * 1024, 3e-6};
  static constexpr char const* kMachineNote =
      "MI355X: AMD's published peaks, unmeasured here (no CDNA hardware)";
  static constexpr char const* kDefaultCandidate = "cdna4_default";

  struct KBlockedInfo {
    static constexpr char const* kShortName = "cdna4_kblocked";
    static constexpr double efficiency(GranularityClass g, EpilogueClass) {
      return g == GranularityClass::kBlockwise ? 0.95 : g == GranularityClass::kMx32 ? 0.70 : 0.90;
    }
  };
  struct DefaultInfo {
    static constexpr char const* kShortName = "cdna4_default";
    static constexpr double efficiency(GranularityClass g, EpilogueClass) {
      return g == GranularityClass::kBlockwise ? 0.80 : 1.0;
    }
  };

  template <class EA, class EB>
  using Candidates = std::tuple<Candidate<Cdna4KBlocked<EA, EB>, KBlockedInfo>,
                                Candidate<Cdna4Default<EA, EB>, DefaultInfo>>;

  static constexpr TableView table() { return {}; }  // nothing measured

  /// GroupedGemm's candidates (AutoGroupedGemm): the policy for the granularity, whatever the rows
  /// per group (unmeasured: Cdna4KBlocked for Blockwise, where it keeps the promotion's scales
  /// beside the accumulators, Cdna4Default for the rest).
  struct GroupedKBlockedInfo : KBlockedInfo {
    static constexpr int kMaxExpectedM = INT32_MAX;
    static constexpr bool kBlockwiseOnly = true;
  };
  struct GroupedDefaultInfo : DefaultInfo {
    static constexpr int kMaxExpectedM = INT32_MAX;
  };
  template <class EA, class EB>
  using GroupedCandidates = std::tuple<Candidate<Cdna4KBlocked<EA, EB>, GroupedKBlockedInfo>,
                                       Candidate<Cdna4Default<EA, EB>, GroupedDefaultInfo>>;
  static constexpr bool kGroupedMeasured = false;
};

/// AMD CDNA3 (gfx942, MI300X): one named policy; the model chooses its split-K. Unmeasured.
struct Cdna3Target {
  static constexpr char const* kName = "cdna3";
  static constexpr int kDefaultSmCount = 304;  // MI300X CUs
  /// AMD's published MI300X peaks (unmeasured here): 2.61 PFLOP/s dense FP8, HBM3 5.3 TB/s,
  /// 256 MiB Infinity Cache at 17.2 TB/s; 64 KiB in flight per CU and a 3 us reduction launch
  /// are assumptions; no per-wave cost (nothing to fit it to).
  static constexpr MachineModel kMachine = {2.61e15,     5.3e12, 17.2e12, 256.0 * 1024 * 1024,
                                            64.0 * 1024, 3e-6};
  static constexpr char const* kMachineNote =
      "MI300X: AMD's published peaks, unmeasured here (no CDNA hardware)";
  static constexpr char const* kDefaultCandidate = "cdna3_default";

  struct DefaultInfo : FlatEfficiency<100> {
    static constexpr char const* kShortName = "cdna3_default";
  };

  template <class EA, class EB>
  using Candidates = std::tuple<Candidate<Cdna3Default<EA, EB>, DefaultInfo>>;

  static constexpr TableView table() { return {}; }

  struct GroupedDefaultInfo : DefaultInfo {
    static constexpr int kMaxExpectedM = INT32_MAX;
  };
  template <class EA, class EB>
  using GroupedCandidates = std::tuple<Candidate<Cdna3Default<EA, EB>, GroupedDefaultInfo>>;
  static constexpr bool kGroupedMeasured = false;
};

}  // namespace fp8gemm::selection
