// SPDX-License-Identifier: MIT
/// AutoGroupedGemm: a GroupedGemm that picks its policy per call (device layer), from the rows a
/// group is expected to have (a host hint: the counts themselves stay on the device). Same
/// Arguments as GroupedGemm plus expected_m and force_policy; select / explain say what runs and
/// why (docs/grouped.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fp8gemm/device/grouped_gemm.hpp"
#include "fp8gemm/device/selection/choice.hpp"
#include "fp8gemm/device/selection/device_sm_count.hpp"
#include "fp8gemm/device/selection/targets.hpp"
#include "fp8gemm/device/supports.hpp"

namespace fp8gemm {

using selection::Choice;
using selection::Tier;

namespace selection {

/// The grouped candidates that GroupedGemm takes for these types: the config compiles, B is
/// [N, K], no clusters, a Blockwise-only candidate only for Blockwise and a not-Blockwise one only
/// for the others.
template <class Candidates, class Granularity, template <class> class ConfigOf>
struct GroupedCompilingCandidates;
template <class... Cs, class Granularity, template <class> class ConfigOf>
struct GroupedCompilingCandidates<std::tuple<Cs...>, Granularity, ConfigOf> {
  template <class C>
  static constexpr bool kTakes =
      config_compiles<ConfigOf<C>>() && arch::kernel_cluster_size<typename C::Policy>::value == 1 &&
      takes_granularity<C, Granularity>();
  using type = decltype(std::tuple_cat(
      std::declval<std::conditional_t<kTakes<Cs>, std::tuple<Cs>, std::tuple<>>>()...));
};

}  // namespace selection

/// GroupedGemm<GemmConfig<Policy, Granularity, kNK, Epilogue, Accumulation>>, Policy chosen per
/// call among Target's grouped candidates: the first, in the target's order, whose largest
/// expected rows per group (kMaxExpectedM) holds the call's, and whose largest K (kMaxK, where it
/// has one) the call's K (the rows rule; an Info with kRowsRulePerTensorOnly only for per-tensor
/// scales). Then the few-tiles rule: where that pick's expected tiles fill at most half the SMs,
/// the first candidate marked kFewTiles with the same BlockM and a narrower BlockN whose tiles
/// fit one wave however the rows fall into groups runs instead (more SMs busy at about the same
/// rate per tile). On sm_90 that order was measured on the H200 and the H100 (tier "table"); on
/// CDNA one policy per granularity, unmeasured (tier "default").
template <class Target, class EA, class EB, class Granularity, class EpilogueT,
          class Accumulation = AtomDefaultAccumulation>
class AutoGroupedGemm {
  template <class Cand>
  using ConfigOf =
      GemmConfig<typename Cand::Policy, Granularity, LayoutB::kNK, EpilogueT, Accumulation>;

 public:
  using Candidates = typename selection::GroupedCompilingCandidates<
      typename Target::template GroupedCandidates<EA, EB>, Granularity, ConfigOf>::type;
  static constexpr int kCandidates = int(std::tuple_size_v<Candidates>);
  static_assert(kCandidates > 0,
                "no grouped candidate of this target compiles for these element types, "
                "granularity and accumulation (config_why_not names each one's rule)");
  template <int I>
  using CandidateConfig = ConfigOf<std::tuple_element_t<I, Candidates>>;
  static_assert(std::tuple_element_t<kCandidates - 1, Candidates>::kMaxExpectedM == INT32_MAX &&
                    !selection::IsRowsRulePerTensorOnly<
                        std::tuple_element_t<kCandidates - 1, Candidates>>::value,
                "the last grouped candidate that compiles must take any rows for any granularity "
                "(select() falls back to it)");
  /// Every candidate's GroupedGemm has the same Arguments (they depend on the types only).
  using Base = GroupedGemm<CandidateConfig<0>>;

  /// GroupedGemm's arguments, plus: expected_m, the rows a group is expected to have (0: derived:
  /// contiguous problem.m / G, masked the capacity problem.m, batched M); force_policy, a short
  /// name (selection/targets.hpp) or a GroupedGemm::name() (else FP8GEMM_FORCE_POLICY, if set).
  /// split_k (GroupedGemm's) != 1: taken as given; 1: the choice's, at most max_split_k and only
  /// where a workspace is planned (contiguous and masked calls always need one; a batched call
  /// with none keeps whole tiles). max_split_k = 1, the default, keeps whole tiles: the modelled
  /// rule (choose_split) ran slower than whole tiles at both cases measured (H100,
  /// docs/grouped.md#split-k-for-few-tiles), so it is opt-in until a measured one replaces it.
  struct Arguments : Base::Arguments {
    int expected_m = 0;
    char const* force_policy = nullptr;
    int max_split_k = 1;
  };

  /// expected_m as the choice uses it.
  static int expected_rows(Arguments const& args) {
    if (args.expected_m > 0) return args.expected_m;
    std::int64_t const groups = args.problem.l > 0 ? args.problem.l : 1;
    return args.mode == GroupMode::kContiguous
               ? static_cast<int>((std::int64_t(args.problem.m) + groups - 1) / groups)
               : args.problem.m;
  }

  /// The choice for these arguments (host only; the same arguments, the same choice).
  static Choice select(Arguments const& args) {
    Choice c;
    int const rows = expected_rows(args);
    std::string forced = args.force_policy != nullptr ? args.force_policy : "";
    std::string by = "Arguments::force_policy";
    std::string env_note;
    bool narrowed = false;  // the few-tiles rule replaced the rows rule's pick
    if (forced.empty()) {   // the environment pins only names of grouped candidates (it is also
                            // AutoGemm's: a dense-only name there is not an error here)
      std::string const env = selection::environment().force_policy;
      if (!env.empty() && find_candidate(env) >= 0)
        forced = env, by = "FP8GEMM_FORCE_POLICY";
      else if (!env.empty())
        env_note = "; FP8GEMM_FORCE_POLICY=" + env + " names no grouped candidate: not applied";
    }
    if (!forced.empty()) {
      c.index = find_candidate(forced);
      c.tier = Tier::kForced;
      c.reason = c.index >= 0
                     ? by + "=" + forced
                     : by + "=" + forced + " names no grouped candidate of " + Target::kName +
                           " for these types (short names: " + list_candidates() +
                           "; or a GroupedGemm::name())";
    } else {
      c.index = kCandidates - 1;  // the last takes any rows and any K (static_asserts)
      for (int i = 0; i < kCandidates; ++i)
        if (rows_rule_takes()[i] && rows <= max_expected_m()[i] && args.problem.k <= max_k()[i]) {
          c.index = i;
          break;
        }
      c.tier = Target::kGroupedMeasured ? Tier::kTable : Tier::kDefault;
      c.reason =
          std::string(Target::kGroupedMeasured
                          ? "measured rule (H200 / H100, fp8gemm_grouped_bench): "
                          : "unmeasured (no hardware): the target's policy for the "
                            "granularity; ") +
          std::to_string(rows) + " expected rows per group" +
          (args.expected_m > 0 ? " (Arguments::expected_m)" : " (derived)") + " <= " +
          (max_expected_m()[c.index] == INT32_MAX ? std::string("any")
                                                  : std::to_string(max_expected_m()[c.index])) +
          (max_k()[c.index] == INT32_MAX ? std::string()
                                         : ", K " + std::to_string(args.problem.k) +
                                               " <= " + std::to_string(max_k()[c.index])) +
          env_note;
      narrowed = choose_few_tiles(args, rows, c);
    }
    if (c.index >= 0) {
      c.name = candidate_name(c.index), c.short_name = short_names()[c.index];
      choose_split(args, rows, narrowed, c);
    }
    if (selection::environment().print_choices) {  // each new choice once
      selection::ChoiceKey key;
      key.m = rows, key.n = args.problem.n, key.k = args.problem.k, key.l = args.problem.l;
      key.split_k = args.split_k, key.sm_count = planned_sms(args);
      key.forced_name_hash = std::hash<std::string>{}(forced);
      static selection::ChoiceCache printed;
      if (printed.insert(key, c)) std::fprintf(stderr, "%s\n", describe(args, c).c_str());
    }
    return c;
  }

  static std::string explain(Arguments const& args) { return describe(args, select(args)); }

  /// Bytes of workspace for the choice (its split-K partial sums included).
  static std::size_t workspace_size(Arguments const& args) {
    return Base::workspace_size(chosen(args, select(args)));
  }

  static Status can_implement(Arguments const& args) {
    Choice const c = select(args);
    if (c.index < 0) return Status::error(StatusCode::kErrorInvalidArgument, c.reason);
    return visit(c.index, [&](auto tag) {
      return GroupedGemm<typename decltype(tag)::type>::can_implement(chosen(args, c));
    });
  }

  [[nodiscard]] static Status run(Arguments const& args, gpuStream_t stream = nullptr) {
    Choice const c = select(args);
    if (c.index < 0) return Status::error(StatusCode::kErrorInvalidArgument, c.reason);
    return visit(c.index, [&](auto tag) {
      return GroupedGemm<typename decltype(tag)::type>::run(chosen(args, c), stream);
    });
  }

  /// The SMs / CUs a call plans for: Arguments::sm_count, else the current device's (asked once
  /// per device), else the target's.
  static int planned_sms(Arguments const& args) {
    return args.sm_count > 0 ? args.sm_count : selection::device_sm_count(Target::kDefaultSmCount);
  }

  /// A bad group size found by the last run (Base's: the same for every candidate).
  [[nodiscard]] static Status counts_status(Arguments const& args, gpuStream_t stream = nullptr) {
    return Base::counts_status(args, stream);
  }

  static std::string candidate_name(int i) {
    if (i < 0 || i >= kCandidates) return "";
    return visit(i, [](auto tag) { return GroupedGemm<typename decltype(tag)::type>::name(); });
  }
  static std::string candidate_short_name(int i) {
    return i < 0 || i >= kCandidates ? "" : short_names()[i];
  }

  template <class T>
  struct TypeTag {
    using type = T;
  };
  template <class F>
  static decltype(auto) visit(int index, F&& f) {
    return visit_impl<0>(index, std::forward<F>(f));
  }

 private:
  template <int I, class F>
  static decltype(auto) visit_impl(int index, F&& f) {
    if constexpr (I + 1 == kCandidates) {
      return f(TypeTag<CandidateConfig<I>>{});
    } else {
      if (index == I) return f(TypeTag<CandidateConfig<I>>{});
      return visit_impl<I + 1>(index, std::forward<F>(f));
    }
  }
  static char const* const* short_names() {
    return short_names_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static char const* const* short_names_impl(std::index_sequence<Is...>) {
    static char const* const names[] = {std::tuple_element_t<Is, Candidates>::kShortName...};
    return names;
  }
  static int const* max_expected_m() {
    return max_expected_m_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static int const* max_expected_m_impl(std::index_sequence<Is...>) {
    static int const m[] = {std::tuple_element_t<Is, Candidates>::kMaxExpectedM...};
    return m;
  }
  /// A candidate's largest K (its Info's kMaxK; none: any).
  template <class C, class = void>
  struct MaxK : std::integral_constant<int, INT32_MAX> {};
  template <class C>
  struct MaxK<C, std::void_t<decltype(C::kMaxK)>> : std::integral_constant<int, C::kMaxK> {};
  static_assert(MaxK<std::tuple_element_t<kCandidates - 1, Candidates>>::value == INT32_MAX,
                "the last grouped candidate that compiles must take any K (select() falls back to "
                "it)");
  static int const* max_k() { return max_k_impl(std::make_index_sequence<kCandidates>{}); }
  template <std::size_t... Is>
  static int const* max_k_impl(std::index_sequence<Is...>) {
    static int const k[] = {MaxK<std::tuple_element_t<Is, Candidates>>::value...};
    return k;
  }
  /// Whether the rows rule may take each candidate for this granularity (an Info with
  /// kRowsRulePerTensorOnly: per-tensor only; the few-tiles rule and a forced name take it for
  /// any granularity).
  static bool const* rows_rule_takes() {
    return rows_rule_takes_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static bool const* rows_rule_takes_impl(std::index_sequence<Is...>) {
    static bool const t[] = {
        (!selection::IsRowsRulePerTensorOnly<std::tuple_element_t<Is, Candidates>>::value ||
         std::is_same_v<Granularity, PerTensor>)...};
    return t;
  }
  static bool const* few_tiles() { return few_tiles_impl(std::make_index_sequence<kCandidates>{}); }
  template <std::size_t... Is>
  static bool const* few_tiles_impl(std::index_sequence<Is...>) {
    static bool const f[] = {selection::IsFewTiles<std::tuple_element_t<Is, Candidates>>::value...};
    return f;
  }
  /// A candidate's tile.
  struct Tile {
    int bm, bn, bk;
    bool ping_pong;
  };
  static Tile tile_of(int index) {
    return visit(index, [](auto tag) {
      using Config = typename decltype(tag)::type;
      using P = typename Config::Policy;
      return Tile{P::kBlockM, P::kBlockN, P::kBlockK,
                  GroupedGemm<Config>::Kernel::TileScheduler::kPingPong};
    });
  }
  /// Tiles of the call at `rows` expected rows per group: groups x ceil(rows / BlockM) x
  /// ceil(N / BlockN).
  /// Saturates at INT64_MAX (expected_m is a hint: any int).
  static std::int64_t expected_tiles(Arguments const& args, int rows, Tile const& t) {
    std::int64_t const f[3] = {
        args.problem.l < 1 ? 0 : std::int64_t(args.problem.l),
        rows < 1 ? 0 : (std::int64_t(rows) + t.bm - 1) / t.bm,
        args.problem.n < 1 ? 0 : (std::int64_t(args.problem.n) + t.bn - 1) / t.bn};
    std::int64_t tiles = 1;
    for (std::int64_t x : f) {
      if (x != 0 && tiles > INT64_MAX / x) return INT64_MAX;
      tiles *= x;
    }
    return tiles;
  }
  /// Tiles of the call at `rows` rows per group on average, as many as uneven groups can make:
  /// tiles never straddle groups, so each group rounds its rows up to whole BlockM tiles on its
  /// own, and G groups of G · rows rows in all take at most floor(G (rows + BlockM - 1) / BlockM)
  /// tile rows (two experts of 194 and 266 rows take 5 tile rows of 128, where 2 x ceil(230 /
  /// 128) counts 4); masked groups at most G ceil(capacity / BlockM) too. Batched calls: every
  /// group has exactly M rows. (Contiguous calls trust the hint: a caller's expected_m below the
  /// real mean rows can undercount.) Saturates at INT64_MAX.
  static std::int64_t most_tiles(Arguments const& args, int rows, Tile const& t) {
    if (args.mode == GroupMode::kBatched) return expected_tiles(args, args.problem.m, t);
    std::int64_t const g = args.problem.l < 1 ? 0 : args.problem.l;
    std::int64_t const r = rows < 1 ? 0 : rows;
    std::int64_t row_tiles = g * (r + t.bm - 1) / t.bm;  // < 2^63: g, r < 2^31
    if (args.mode == GroupMode::kMasked && args.problem.m >= 0) {
      std::int64_t const full = g * ((std::int64_t(args.problem.m) + t.bm - 1) / t.bm);
      row_tiles = row_tiles < full ? row_tiles : full;
    }
    std::int64_t const n_tiles =
        args.problem.n < 1 ? 0 : (std::int64_t(args.problem.n) + t.bn - 1) / t.bn;
    if (n_tiles != 0 && row_tiles > INT64_MAX / n_tiles) return INT64_MAX;
    return row_tiles * n_tiles;
  }

  /// The few-tiles rule (after the rows rule, not for a forced name): where the pick's expected
  /// tiles fill at most half the planned SMs, the first kFewTiles candidate with the same BlockM
  /// and a narrower BlockN whose tiles fit one wave however unevenly the rows fall into groups
  /// (most_tiles). With half the SMs idle, a narrower tile puts more of them to work at about
  /// the same rate per tile; a second, partial wave of it loses more than that gains. Measured
  /// (H100, docs/grouped.md#few-tiles) at K 7168: 2 experts of 97 + 133 rows, N 2048,
  /// per-channel, 128 x 128 26.6 against 128 x 256 44.8 us; 4 of 86-183 rows, N 2048, Blockwise,
  /// 37.6 against 74.4; 2 of 194 + 266 rows, N 4096, per-channel (160 tiles of 128 x 128: not
  /// narrowed), 66.5 against 51.4.
  /// Returns whether it replaced the pick.
  static bool choose_few_tiles(Arguments const& args, int rows, Choice& c) {
    if (c.index < 0 || rows < 1 || args.problem.n < 1 || args.problem.l < 1) return false;
    int const sms = planned_sms(args);
    Tile const pick = tile_of(c.index);
    std::int64_t const tiles = expected_tiles(args, rows, pick);
    if (tiles > sms / 2) return false;  // tiles * 2 > sms, without overflow (sms >= 1)
    for (int i = 0; i < kCandidates; ++i) {
      if (i == c.index || !few_tiles()[i]) continue;
      Tile const t = tile_of(i);
      if (t.bm != pick.bm || t.bn >= pick.bn) continue;
      std::int64_t const most = most_tiles(args, rows, t);
      if (most > sms) continue;
      c.reason += "; few tiles: " + std::to_string(tiles) + " expected tiles of " +
                  std::to_string(pick.bm) + " x " + std::to_string(pick.bn) + " (" +
                  short_names()[c.index] + ") fill at most half of " + std::to_string(sms) +
                  " SMs, so " + short_names()[i] + " (" + std::to_string(t.bm) + " x " +
                  std::to_string(t.bn) + ", at most " + std::to_string(most) + " tiles: one wave)";
      c.index = i;
      return true;
    }
    return false;
  }
  /// The arguments GroupedGemm gets for choice c: its split_k.
  static Arguments chosen(Arguments args, Choice const& c) {
    args.split_k = c.split_k;
    return args;
  }
  /// Split-K for few tiles (modelled, not yet measured): the caller's split_k when != 1; else,
  /// where the expected tiles (groups x ceil(rows / BlockM) x ceil(N / BlockN)) fill at most half
  /// the SMs and K has at least 8 blocks, S = min(SMs / tiles, K blocks / 4, max_split_k) splits of
  /// at least 4 K blocks each: more work items in flight, against one more kernel that adds the
  /// S partial sums. Not where their workspace (S x every row of flattened A x N floats: a masked
  /// call's whole capacity) would pass kMaxAutoPartialBytes, nor for ping-pong candidates (whole
  /// tiles), a batched call without a workspace, or a pick the few-tiles rule made (`narrowed`:
  /// its whole tiles ran faster than every split measured, docs/grouped.md#few-tiles).
  static constexpr std::size_t kMaxAutoPartialBytes = std::size_t(64) << 20;
  static void choose_split(Arguments const& args, int rows, bool narrowed, Choice& c) {
    c.sm_count = planned_sms(args);
    if (args.split_k != 1) {
      c.split_k = args.split_k;  // GroupedGemm::can_implement refuses one below 1, in words
      c.reason += "; split_k " + std::to_string(c.split_k) + " (Arguments::split_k)";
      return;
    }
    Tile const tile = tile_of(c.index);
    bool const planned = args.mode != GroupMode::kBatched || args.workspace != nullptr;
    if (!planned || tile.ping_pong || narrowed || rows < 1 || args.problem.n < 1 ||
        args.problem.k < 1 || args.problem.l < 1 || args.max_split_k < 2)
      return;  // (no groups: no tiles to split; GroupedGemm refuses such a call in words)
    std::int64_t const tiles = expected_tiles(args, rows, tile);
    int const k_blocks = (args.problem.k + tile.bk - 1) / tile.bk;
    if (tiles > c.sm_count / 2 || k_blocks < 8) return;
    std::int64_t split = c.sm_count / tiles;
    if (split > k_blocks / 4) split = k_blocks / 4;
    if (split > args.max_split_k) split = args.max_split_k;
    std::size_t const per_split =
        std::size_t(Base::flat_rows_a(args)) * std::size_t(args.problem.n) * sizeof(float);
    while (split >= 2 && std::size_t(split) * per_split > kMaxAutoPartialBytes) --split;
    if (split < 2) return;
    c.split_k = static_cast<int>(split);
    c.reason += "; split-K " + std::to_string(c.split_k) + ": " + std::to_string(tiles) +
                " expected tiles on " + std::to_string(c.sm_count) +
                " SMs (Arguments::max_split_k; a model: tiles <= SMs / 2, K blocks >= 8)";
  }
  static int find_candidate(std::string const& name) {
    for (int i = 0; i < kCandidates; ++i)
      if (name == short_names()[i] || name == candidate_name(i)) return i;
    return -1;
  }
  static std::string list_candidates() {
    std::string s;
    for (int i = 0; i < kCandidates; ++i) s += (i ? ", " : "") + std::string(short_names()[i]);
    return s;
  }
  static std::string describe(Arguments const& args, Choice const& c) {
    return std::string("AutoGroupedGemm<") + Target::kName + "> " + group_mode_name(args.mode) +
           " G=" + std::to_string(args.problem.l) + " N=" + std::to_string(args.problem.n) +
           " K=" + std::to_string(args.problem.k) + ": " +
           (c.index >= 0 ? c.short_name : std::string("none")) +
           (c.split_k > 1 ? " split_k " + std::to_string(c.split_k) : std::string()) + " [" +
           to_string(c.tier) + "] " + c.reason;
  }
};

}  // namespace fp8gemm
