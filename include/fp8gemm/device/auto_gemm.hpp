// SPDX-License-Identifier: MIT
/// AutoGemm: a GEMM that picks its kernel per call (device layer). Same Arguments, can_implement,
/// workspace_size and run as Gemm<Config>; per (M, N, K, SM count) it chooses a policy, split-K and
/// raster among the target's candidates (selection/targets.hpp) that compile for the types, from
/// the measured table (tier 1), the model (tier 2, selection/model.hpp) or the safe default (tier
/// 3), or as the caller forces it. docs/selection.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fp8gemm/arch/gpu_runtime.hpp"
#include "fp8gemm/device/gemm.hpp"
#include "fp8gemm/device/selection/choice.hpp"
#include "fp8gemm/device/selection/device_sm_count.hpp"
#include "fp8gemm/device/selection/model.hpp"
#include "fp8gemm/device/selection/sm90_h200_table.hpp"
#include "fp8gemm/device/selection/targets.hpp"
#include "fp8gemm/device/supports.hpp"
#include "fp8gemm/epilogue/epilogue.hpp"

namespace fp8gemm {

using selection::Choice;
using selection::Tier;

namespace selection {

template <class G>
constexpr GranularityClass granularity_class() {
  if constexpr (std::is_same_v<G, PerTensor>)
    return GranularityClass::kPerTensor;
  else if constexpr (std::is_same_v<G, PerChannel>)
    return GranularityClass::kPerChannel;
  else if constexpr (std::is_same_v<G, Mx32>)
    return GranularityClass::kMx32;
  else
    return GranularityClass::kBlockwise;
}
template <class Act>
constexpr EpilogueClass epilogue_class() {
  if constexpr (std::is_same_v<Act, Identity>)
    return EpilogueClass::kIdentity;
  else if constexpr (std::is_same_v<Act, GeluTanh>)
    return EpilogueClass::kGeluTanh;
  else if constexpr (std::is_same_v<Act, GeluErf>)
    return EpilogueClass::kGeluErf;
  else
    return EpilogueClass::kOther;
}

/// The candidates whose GemmConfig passes its compile-time rules (config_compiles) and that take
/// this granularity (takes_granularity): the others are dropped here and never instantiated.
template <class Candidates, class Granularity, template <class> class ConfigOf>
struct CompilingCandidates;
template <class... Cs, class Granularity, template <class> class ConfigOf>
struct CompilingCandidates<std::tuple<Cs...>, Granularity, ConfigOf> {
  template <class C>
  static constexpr bool kTakes =
      config_compiles<ConfigOf<C>>() && takes_granularity<C, Granularity>();
  using type = decltype(std::tuple_cat(
      std::declval<std::conditional_t<kTakes<Cs>, std::tuple<Cs>, std::tuple<>>>()...));
};

/// Whether the model may pick a candidate: its Info's kModelled, true where it has none.
template <class C, class = void>
struct IsModelled : std::true_type {};
template <class C>
struct IsModelled<C, std::void_t<decltype(C::kModelled)>> : std::bool_constant<C::kModelled> {};

/// The least M at which the model may pick a candidate: its Info's kModelMinM, 1 where it has none.
template <class C, class = void>
struct ModelMinM : std::integral_constant<int, 1> {};
template <class C>
struct ModelMinM<C, std::void_t<decltype(C::kModelMinM)>>
    : std::integral_constant<int, C::kModelMinM> {};

/// The split-K counts the model tries when a candidate's tiles do not fill the SMs.
inline constexpr int kModelSplits[] = {2, 3, 4, 6, 8};

}  // namespace selection

/// C = epilogue((s_a (x) s_b) * (A B)) as Gemm<GemmConfig<Policy, Granularity, LayoutB, Epilogue,
/// Accumulation>> computes it, Policy chosen per call among Target's candidates for (EA, EB).
template <class Target, class EA, class EB, class Granularity, LayoutB kLayoutB, class EpilogueT,
          class Accumulation = AtomDefaultAccumulation>
class AutoGemm {
  template <class Cand>
  using ConfigOf =
      GemmConfig<typename Cand::Policy, Granularity, kLayoutB, EpilogueT, Accumulation>;

 public:
  /// The candidates that compile for these types, in the target's order (Choice::index).
  using Candidates =
      typename selection::CompilingCandidates<typename Target::template Candidates<EA, EB>,
                                              Granularity, ConfigOf>::type;
  static constexpr int kCandidates = int(std::tuple_size_v<Candidates>);
  static constexpr char const* kTargetName = Target::kName;
#if defined(FP8GEMM_HAS_GPU_RUNTIME)
  static constexpr bool kHasGpuRuntime = true;  // device_sm_count asks the device
#else
  static constexpr bool kHasGpuRuntime = false;
#endif
  static_assert(kCandidates > 0,
                "no candidate policy of this target compiles for these element types, "
                "granularity, layout and accumulation (config_why_not names each one's rule)");
  template <int I>
  using CandidateConfig = ConfigOf<std::tuple_element_t<I, Candidates>>;

  using ElementA = EA;
  using ElementB = EB;
  using ElementC = typename EpilogueT::Element;
  using Scale = ScaleElement<Granularity>;
  using EpilogueParams = typename EpilogueT::Params;

  /// Gemm's fields, with the same meaning, plus force_policy. sm_count > 0: the SMs / CUs the
  /// selection plans for (and, on the WGMMA candidates, their grid cap as in Gemm; the portable
  /// candidates launch one workgroup per tile and are given 0); 0: the device's count, or the
  /// target's default (132 / 256 / 304) where no device can be asked. split_k != 1 or
  /// band_m != 0: taken as given (tier forced), the policy still chosen.
  struct Arguments {
    ProblemShape problem;
    ElementA const* a = nullptr;
    std::int64_t lda = 0;
    ElementB const* b = nullptr;
    std::int64_t ldb = 0;
    Scale const* scale_a = nullptr;
    std::int64_t scale_a_count = 0;
    Scale const* scale_b = nullptr;
    std::int64_t scale_b_count = 0;
    EpilogueParams epilogue{};
    int split_k = 1;
    int band_m = 0;
    void* workspace = nullptr;  // workspace_size(args) bytes; null: the choice takes split_k = 1
    int sm_count = 0;
    /// A candidate's short name (selection/targets.hpp) or Gemm::name(): runs that one (tier
    /// forced); FP8GEMM_FORCE_POLICY does the same for every call. Null: chosen.
    char const* force_policy = nullptr;
    std::int64_t scale_a_ld = 0;  // Blockwise: 0 row-major, > 0 K-block-major (Gemm::Arguments)
  };

  /// The choice for these arguments: memoized per (M, N, K, L, SM count, split_k, band_m, whether a
  /// workspace is given, force_policy). Host only: no device memory is read, nothing launched.
  static Choice select(Arguments const& args) {
    selection::ChoiceKey const key = key_of(args);
    Choice c;
    if (cache().get(key, &c)) return c;
    // a choice decided before load_table / reset_for_testing bumped the generation is returned
    // but not memoized: it may have seen the old tables
    unsigned const generation = selection::generation().load(std::memory_order_acquire);
    c = decide(args, key);
    if (cache().insert(key, c, generation) && selection::environment().print_choices)
      std::fprintf(stderr, "%s\n", describe(args, c).c_str());
    return c;
  }

  /// The choice in words: what, its tier, and why.
  static std::string explain(Arguments const& args) {
    return describe(args, select(args));
  }

  static Status can_implement(Arguments const& args) {
    Choice const c = select(args);
    if (c.index < 0) return Status::error(StatusCode::kErrorInvalidArgument, c.reason);
    return visit(c.index, [&](auto tag) {
      using G = Gemm<typename decltype(tag)::type>;
      return G::can_implement(to_gemm_arguments<typename decltype(tag)::type>(args, c));
    });
  }

  /// The bytes of workspace the choice needs when a workspace is given (the model may then split
  /// K, the table may name a stream-K candidate); 0 when the choice needs none. Pass that many
  /// bytes as args.workspace.
  static std::size_t workspace_size(Arguments const& args) {
    Arguments planned = args;
    planned.workspace = planned_workspace();
    Choice const c = select(planned);
    if (c.index < 0) return 0;
    return visit(c.index, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      return Gemm<Config>::workspace_size(to_gemm_arguments<Config>(planned, c));
    });
  }

  /// Selects (a cache hit after the first call of a shape), then runs the chosen Gemm on stream.
  [[nodiscard]] static Status run(Arguments const& args, gpuStream_t stream = nullptr) {
    selection::ChoiceKey const key = key_of(args);
    selection::ChoiceCache::Decision d;
    Choice c;
    if (cache().lookup(key, &d)) {
      c.index = d.index, c.split_k = d.split_k, c.band_m = d.band_m;
    } else {
      c = select(args);
    }
    if (c.index < 0) return can_implement(args);  // the forced name's refusal
    return visit(c.index, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      return Gemm<Config>::run(to_gemm_arguments<Config>(args, c), stream);
    });
  }

  /// The Gemm<Config>::Arguments run() passes for choice c (Config = CandidateConfig<c.index>):
  /// the caller's fields, c's split_k and band_m, and sm_count for the WGMMA candidates only.
  template <class Config>
  static typename Gemm<Config>::Arguments to_gemm_arguments(Arguments const& a, Choice const& c) {
    typename Gemm<Config>::Arguments g;
    g.problem = a.problem;
    g.a = a.a, g.lda = a.lda, g.b = a.b, g.ldb = a.ldb;
    g.scale_a = a.scale_a, g.scale_a_count = a.scale_a_count;
    g.scale_b = a.scale_b, g.scale_b_count = a.scale_b_count;
    g.scale_a_ld = a.scale_a_ld;
    g.epilogue = a.epilogue;
    g.split_k = c.split_k, g.band_m = c.band_m;
    g.workspace = a.workspace;
    g.sm_count = IsWgmmaPolicy<typename Config::Policy>::value ? a.sm_count : 0;
    return g;
  }

  /// Gemm::name() of candidate i ("" outside [0, kCandidates)).
  static std::string candidate_name(int i) {
    if (i < 0 || i >= kCandidates) return "";
    return visit(i, [](auto tag) { return Gemm<typename decltype(tag)::type>::name(); });
  }
  static std::string candidate_short_name(int i) {
    return i < 0 || i >= kCandidates ? "" : short_names()[i];
  }
  /// Whether candidate i runs only with a workspace, whatever its split (a StreamK<P> policy).
  static bool candidate_needs_workspace(int i) {
    return i >= 0 && i < kCandidates &&
           visit(i, [](auto tag) { return Gemm<typename decltype(tag)::type>::kStreamK; });
  }
  /// Whether the model may pick candidate i (false: table-only, chosen by a measurement or by
  /// name).
  static bool candidate_modelled(int i) {
    return i >= 0 && i < kCandidates && modelled()[i];
  }

  /// Calls f(TypeTag<CandidateConfig<index>>{}) for a runtime index in [0, kCandidates) (every
  /// candidate's call must return the same type).
  template <class T>
  struct TypeTag {
    using type = T;
  };
  template <class F>
  static decltype(auto) visit(int index, F&& f) {
    return visit_impl<0>(index, std::forward<F>(f));
  }

  /// The SM / CU count a call with sm_count = 0 plans for: the current device's where a GPU
  /// runtime answers (asked once per device), else Target::kDefaultSmCount.
  static int device_sm_count() {
    return selection::device_sm_count(Target::kDefaultSmCount);
  }

  /// The choices memoized so far (tests).
  static std::size_t cached_choices() {
    return cache().size();
  }

 private:
  template <int I, class F>
  static decltype(auto) visit_impl(int index, F&& f) {
    if constexpr (I + 1 == kCandidates) {
      return f(TypeTag<CandidateConfig<I>>{});  // the last one, or an index out of range
    } else {
      if (index == I) return f(TypeTag<CandidateConfig<I>>{});
      return visit_impl<I + 1>(index, std::forward<F>(f));
    }
  }

  static selection::ChoiceCache& cache() {
    static selection::ChoiceCache c;
    return c;
  }

  static void* planned_workspace() {  // never dereferenced: marks "a workspace will be given"
    static float marker[1];
    return marker;
  }

  static char const* const* short_names() {
    return short_names_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static char const* const* short_names_impl(std::index_sequence<Is...>) {
    static char const* const names[] = {std::tuple_element_t<Is, Candidates>::kShortName...};
    return names;
  }

  static selection::ChoiceKey key_of(Arguments const& args) {
    selection::ChoiceKey key;
    key.m = args.problem.m, key.n = args.problem.n, key.k = args.problem.k, key.l = args.problem.l;
    key.sm_count = args.sm_count > 0 ? args.sm_count : device_sm_count();
    key.split_k = args.split_k, key.band_m = args.band_m;
    key.has_workspace = args.workspace != nullptr;
    if (args.force_policy != nullptr)
      key.forced_name_hash = std::hash<std::string>{}(args.force_policy) | 1;
    return key;
  }

  template <class Config>
  static selection::CandidateShape shape_of(int i) {
    using P = typename Config::Policy;
    selection::CandidateShape s;
    s.block_m = P::kBlockM, s.block_n = P::kBlockN, s.block_k = P::kBlockK;
    s.stages = P::kStages;
    s.swap_ab = WgmmaSwapsAB<P>::value;
    s.a_rows_follow_m = IsWgmmaPolicy<P>::value;
    s.compute_efficiency = efficiencies()[i];
    return s;
  }
  static int const* model_min_m() {
    return model_min_m_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static int const* model_min_m_impl(std::index_sequence<Is...>) {
    static int const m[] = {selection::ModelMinM<std::tuple_element_t<Is, Candidates>>::value...};
    return m;
  }
  static bool const* modelled() {
    return modelled_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static bool const* modelled_impl(std::index_sequence<Is...>) {
    static bool const m[] = {selection::IsModelled<std::tuple_element_t<Is, Candidates>>::value...};
    return m;
  }
  static double const* efficiencies() {
    return efficiencies_impl(std::make_index_sequence<kCandidates>{});
  }
  template <std::size_t... Is>
  static double const* efficiencies_impl(std::index_sequence<Is...>) {
    static double const e[] = {std::tuple_element_t<Is, Candidates>::efficiency(
        selection::granularity_class<Granularity>(),
        selection::epilogue_class<typename EpilogueT::Act>())...};
    return e;
  }

  /// Whether candidate i can run the problem with split_k on operands of its shape with rows
  /// padded to 16 elements, on the target: supports<>, where a refusal of this build or device
  /// alone still counts as feasible (run() reports it): arch::check_target's, and in builds without
  /// nvcc's TMA encoder the WGMMA kernel's, which refuses before its shape checks; its shape is
  /// then unverified here.
  static Status feasible(int i, ProblemShape const& pr, int split_k) {
    return visit(i, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      using P = typename Config::Policy;
      Status const s = supports<Config>(pr, split_k, OperandPitches::kPadded16);
      if (s.ok()) return s;
      if constexpr (IsWgmmaPolicy<P>::value && !arch::kTmaEncoderAvailable) {
        // Gemm's own checks passed; the mainloop refused the build (kErrorUnsupported, its
        // first check). The split is then checked against the K tiles only.
        if (s.code() == StatusCode::kErrorUnsupported)
          return split_k >= 1 && split_k <= selection::ceil_div(pr.k, P::kBlockK)
                     ? Status::success()
                     : Status::error(
                           StatusCode::kErrorInvalidArgument,
                           "split_k must be in [1, K tiles of " + std::to_string(P::kBlockK) + "]");
      }
      Status const device = arch::check_target<typename P::Arch>();
      if (!device.ok() && device.message() == s.message()) return Status::success();
      return s;
    });
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

  struct Best {
    int index = -1, split_k = 1;
    double seconds = 0;
  };

  /// The model's minimum over candidates (only `only` when >= 0; else the modelled ones whose
  /// kModelMinM M reaches) and splits (only `split` when >= 1; else 1, and 2..8 where tiles < SMs
  /// when `allow_split`). Ties: the first in order.
  static Best model_best(ProblemShape const& pr, int sms, int only, int split, bool allow_split) {
    Best best;
    int constexpr c_bytes = int(sizeof(ElementC));
    for (int i = 0; i < kCandidates; ++i) {
      if (only >= 0 ? i != only : !modelled()[i] || pr.m < model_min_m()[i]) continue;
      selection::CandidateShape const s =
          visit(i, [&](auto tag) { return shape_of<typename decltype(tag)::type>(i); });
      auto consider = [&](int sk) {
        if (!feasible(i, pr, sk).ok()) return;
        double const t =
            selection::estimate(pr.m, pr.n, pr.k, sms, sk, c_bytes, s, Target::kMachine).seconds;
        if (best.index < 0 || t < best.seconds) best = {i, sk, t};
      };
      if (split >= 1) {
        consider(split);
        continue;
      }
      consider(1);
      std::int64_t const tiles =
          selection::ceil_div(pr.m, s.block_m) * selection::ceil_div(pr.n, s.block_n);
      if (allow_split && tiles < sms)
        for (int sk : selection::kModelSplits) consider(sk);
    }
    return best;
  }

  static std::string us(double seconds) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f us", seconds * 1e6);
    return b;
  }

  static Choice decide(Arguments const& args, selection::ChoiceKey const& key) {
    ProblemShape const& pr = args.problem;
    Choice c;
    c.sm_count = key.sm_count;
    std::string const sms_from = args.sm_count > 0 ? "Arguments::sm_count"
                                 : kHasGpuRuntime  ? "the device"
                                                   : "the target's default (no GPU runtime here)";
    std::string const where = std::to_string(key.sm_count) + " SMs/CUs (" + sms_from + ")";
    bool const forced_split = args.split_k != 1, forced_band = args.band_m != 0;
    bool const has_ws = args.workspace != nullptr;
    c.band_m = args.band_m;
    selection::Environment const env = selection::environment();
    std::string forced_name = args.force_policy != nullptr ? args.force_policy : "";
    std::string forced_by = "Arguments::force_policy";
    if (forced_name.empty()) {
      forced_name = env.force_policy;
      forced_by = "FP8GEMM_FORCE_POLICY";
    }
    auto finish = [&](int index, int split_k, Tier tier, std::string reason) {
      c.index = index, c.split_k = split_k, c.tier = tier;
      if (index >= 0) {
        c.name = candidate_name(index), c.short_name = short_names()[index];
        visit(index, [&](auto tag) {
          c.estimated_us = 1e6 * selection::estimate(pr.m, pr.n, pr.k, key.sm_count, split_k,
                                                     int(sizeof(ElementC)),
                                                     shape_of<typename decltype(tag)::type>(index),
                                                     Target::kMachine)
                                     .seconds;
        });
      }
      std::string raster = "; raster: the scheduler's band_m";
      if (index >= 0 && !forced_band)
        visit(index, [&](auto tag) {
          using Config = typename decltype(tag)::type;
          if constexpr (IsWgmmaPolicy<typename Config::Policy>::value) {
            std::int64_t const units = pr.tiles_m<Config::Policy::kBlockM>() *
                                       pr.tiles_n<Config::Policy::kBlockN>() * split_k;
            int const grid = int(units < key.sm_count ? units : key.sm_count);
            raster += " (auto_band_m: " +
                      std::to_string(Config::TileScheduler::band_m_for(0, grid, split_k)) +
                      " tile rows per band for " + std::to_string(grid) + " CTAs)";
          } else {
            raster += " (" + std::to_string(Config::TileScheduler::kDefaultBandM) +
                      " tile rows per band)";
          }
        });
      if (index >= 0)  // a refusal (no candidate) is the reason alone
        reason += forced_band ? "; band_m " + std::to_string(args.band_m) + " given by the caller"
                              : raster;
      c.reason = reason;
      return c;
    };
    std::string const split_note =
        forced_split ? "split_k " + std::to_string(args.split_k) + " given by the caller; " : "";

    // A table file the caller named that could not be read: no choice (can_implement says why).
    if (!env.table_error.empty()) return finish(-1, args.split_k, Tier::kTable, env.table_error);

    // Forced policy: that candidate, the split the caller gave or the model's for it.
    if (!forced_name.empty()) {
      int const i = find_candidate(forced_name);
      if (i < 0)
        return finish(-1, args.split_k, Tier::kForced,
                      forced_by + "=" + forced_name + " names no candidate of this AutoGemm<" +
                          Target::kName + "> (short names: " + list_candidates() +
                          "; or a Gemm::name())");
      Best const b = model_best(pr, key.sm_count, i, forced_split ? args.split_k : 0, has_ws);
      int const sk = b.index >= 0 ? b.split_k : args.split_k;
      return finish(
          i, sk, Tier::kForced,
          split_note + forced_by + "=" + forced_name + "; split_k " + std::to_string(sk) +
              (b.index >= 0 ? " by the model" : "") +
              (b.index < 0 ? " (it cannot run this problem: can_implement says why)" : "") +
              (!has_ws && candidate_needs_workspace(i)
                   ? " (it needs a workspace of workspace_size(args) bytes: none given, so "
                     "can_implement refuses the call)"
                   : "") +
              " on " + where);
    }

    // Tier 1: the measured tables, when the call plans for the SM count they were measured on:
    // those read at run time (selection::load_table, FP8GEMM_TABLE) for this target, then the
    // target's own. The first table with an entry for the call decides, or hands over to the model
    // (a stale name, an infeasible entry, stream-K without a workspace: the reason says which).
    std::string table_note;  // why a matching entry did not decide
    auto lookup = [&](selection::TableView const& table, Choice* out) -> bool {
      if (forced_split || table.size == 0 || table.sm_count != key.sm_count) return false;
      for (std::size_t e = 0; e < table.size; ++e) {
        selection::TableEntry const& t = table.entries[e];
        if (t.granularity != selection::granularity_class<Granularity>() ||
            t.accumulation != accumulation_class() ||
            t.epilogue != selection::epilogue_class<typename EpilogueT::Act>() || t.n != pr.n ||
            t.k != pr.k || pr.m < t.m_lo || pr.m > t.m_hi)
          continue;
        std::string const range = "N=" + std::to_string(t.n) + " K=" + std::to_string(t.k) +
                                  " M in [" + std::to_string(t.m_lo) + ", " +
                                  std::to_string(t.m_hi) + "] (" + table.provenance + ")";
        int const i = find_candidate(t.candidate);
        if (i < 0) {
          table_note = "the table entry " + range + " names " + t.candidate +
                       ", which this AutoGemm does not have; ";
          return true;
        }
        int const sk = has_ws ? t.split_k : 1;
        if (Status const f = feasible(i, pr, sk); !f.ok()) {
          table_note = "the table entry " + range + " names " + short_names()[i] +
                       ", which cannot run it (" + f.message() + "); ";
          return true;
        }
        if (!has_ws && candidate_needs_workspace(i)) {  // stream-K without a workspace
          table_note = std::string("the table's ") + short_names()[i] +
                       " needs a workspace (workspace_size(args) bytes): none given; ";
          return true;
        }
        *out = finish(i, sk, forced_band ? Tier::kForced : Tier::kTable,
                      "table entry " + range +
                          (sk != t.split_k ? "; its split_k " + std::to_string(t.split_k) +
                                                 " needs a workspace: none given, split_k 1"
                                           : "") +
                          " on " + where);
        return true;
      }
      return false;
    };
    {
      Choice from_table;
      bool decided = false;  // an entry matched (it chose, or said why the model does)
      for (auto const& loaded : env.tables)
        if (!decided && loaded->target == Target::kName)
          decided = lookup(loaded->view(), &from_table);
      if (!decided) decided = lookup(Target::table(), &from_table);
      if (decided && from_table.index >= 0) return from_table;
    }

    // Tier 2: the model.
    Best const b = model_best(pr, key.sm_count, -1, forced_split ? args.split_k : 0, has_ws);
    if (b.index >= 0) {
      std::string why = split_note + table_note + "model: least estimated time " + us(b.seconds) +
                        " on " + where + " (" + Target::kMachineNote + ")";
      if (!forced_split && !has_ws) {
        Best const with_ws = model_best(pr, key.sm_count, -1, 0, true);
        if (with_ws.index >= 0 && with_ws.split_k > 1)
          why += "; no workspace given: split_k 1 (with workspace_size(args) bytes it would take " +
                 std::string(short_names()[with_ws.index]) + " split_k " +
                 std::to_string(with_ws.split_k) + ", " + us(with_ws.seconds) + ")";
      }
      return finish(b.index, b.split_k, forced_split || forced_band ? Tier::kForced : Tier::kModel,
                    why);
    }

    // Tier 3: no candidate can run it; the default, whose refusal can_implement returns.
    int const d = default_index();
    Status const why = feasible(d, pr, args.split_k);
    return finish(d, args.split_k, forced_split || forced_band ? Tier::kForced : Tier::kDefault,
                  split_note + "no candidate can run M=" + std::to_string(pr.m) +
                      " N=" + std::to_string(pr.n) + " K=" + std::to_string(pr.k) +
                      "; the default " + short_names()[d] + " refuses it: " + why.to_string());
  }

  static constexpr selection::AccumulationClass accumulation_class() {
    return Accumulation::kPromoteK == 0 ? selection::AccumulationClass::kFast
                                        : selection::AccumulationClass::kPromoted;
  }

  static int default_index() {
    int const i = find_candidate(Target::kDefaultCandidate);
    return i >= 0 ? i : 0;
  }

  static std::string describe(Arguments const& args, Choice const& c) {
    return std::string("fp8gemm AutoGemm<") + Target::kName +
           "> M=" + std::to_string(args.problem.m) + " N=" + std::to_string(args.problem.n) +
           " K=" + std::to_string(args.problem.k) + ": " +
           (c.index >= 0 ? c.short_name + " (" + c.name + ")" : std::string("no candidate")) +
           " split_k " + std::to_string(c.split_k) + " band_m " + std::to_string(c.band_m) + " [" +
           selection::to_string(c.tier) + "] " + c.reason;
  }
};

}  // namespace fp8gemm
