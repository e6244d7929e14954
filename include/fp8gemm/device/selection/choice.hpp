// SPDX-License-Identifier: MIT
/// AutoGemm's decision record, its environment switches and its memo (device layer): Choice and
/// Tier, FP8GEMM_FORCE_POLICY / FP8GEMM_PRINT_CHOICES / FP8GEMM_TABLE read once, tables loaded at
/// run time (load_table), and the per-instantiation cache.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "fp8gemm/device/selection/table_file.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm::selection {

/// Where a choice came from: the measured table (tier 1), the model (tier 2), the target's safe
/// default (tier 3: no candidate can run the problem, so the default's refusal is the answer), or
/// the caller (split_k, band_m or a policy given).
enum class Tier { kTable, kModel, kDefault, kForced };

inline char const* to_string(Tier t) {
  switch (t) {
    case Tier::kTable:
      return "table";
    case Tier::kModel:
      return "model";
    case Tier::kDefault:
      return "default";
    case Tier::kForced:
      return "forced";
  }
  return "?";
}

/// One selection. index < 0: no candidate (a forced name that matches none; can_implement says).
struct Choice {
  int index = -1;          // into the AutoGemm's (filtered) candidate list
  std::string name;        // the candidate's Gemm::name()
  std::string short_name;  // selection/targets.hpp
  int split_k = 1;
  int band_m = 0;  // 0: the candidate's scheduler picks its raster band
  Tier tier = Tier::kDefault;
  std::string reason;
  int sm_count = 0;         // the SMs / CUs the choice plans for
  double estimated_us = 0;  // the model's estimate for the choice (0: not estimated)
};

/// The environment, read at first use (and again after reset_for_testing):
///   FP8GEMM_FORCE_POLICY=<short name | Gemm::name()>  every AutoGemm that has it runs it
///   FP8GEMM_PRINT_CHOICES=1                           each new choice once to stderr
///   FP8GEMM_TABLE=<file>[:<file>...]                  measured tables (table_file.hpp) looked
///                                                     up before the target's own, first file first
/// A table file that cannot be read is not skipped: every AutoGemm choice then fails
/// (can_implement returns kErrorInvalidArgument with table_error), so a typo is not a silent
/// fall back to the model.
struct Environment {
  std::string force_policy;
  bool print_choices = false;
  std::vector<std::shared_ptr<LoadedTable const>> tables;  // load_table's newest first, then
                                                           // FP8GEMM_TABLE's in order
  std::string table_error;
};

/// Bumped by reset_for_testing: caches of an older generation are cleared on their next use.
inline std::atomic<unsigned>& generation() {
  static std::atomic<unsigned> g{0};
  return g;
}

inline Environment read_environment() {
  Environment e;
  if (char const* f = std::getenv("FP8GEMM_FORCE_POLICY")) e.force_policy = f;
  if (char const* p = std::getenv("FP8GEMM_PRINT_CHOICES")) e.print_choices = p[0] == '1';
  if (char const* t = std::getenv("FP8GEMM_TABLE")) {
    std::string const list = t;
    std::size_t start = 0;
    while (start <= list.size() && e.table_error.empty()) {
      std::size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      std::string const path = list.substr(start, end - start);
      start = end + 1;
      if (path.empty()) continue;
      auto table = std::make_shared<LoadedTable>();
      Status const s = read_table_file(path, table.get());
      if (!s.ok())
        e.table_error = "FP8GEMM_TABLE: " + s.message();
      else
        e.tables.push_back(std::move(table));
    }
  }
  return e;
}

inline std::mutex& environment_mutex() {
  static std::mutex m;
  return m;
}
inline Environment& environment_storage() {
  static Environment e = read_environment();
  return e;
}
/// A copy of the environment (taken on cache misses only).
inline Environment environment() {
  std::lock_guard<std::mutex> lock(environment_mutex());
  return environment_storage();
}

/// Tests: re-read the environment and empty every AutoGemm's cache (a fresh process's state:
/// tables given to load_table are dropped).
inline void reset_for_testing() {
  {
    std::lock_guard<std::mutex> lock(environment_mutex());
    environment_storage() = read_environment();
  }
  generation().fetch_add(1, std::memory_order_acq_rel);
}

/// Reads a measured table (table_file.hpp's format, bench/make_table.py --csv) for every AutoGemm
/// of its target: looked up before the tables loaded earlier, FP8GEMM_TABLE's and the target's
/// own, where a call plans for its SM count. Every AutoGemm's memo is emptied, so the next call
/// of each shape chooses again. A file that cannot be read changes nothing and is the error.
inline Status load_table(std::string const& path) {
  auto table = std::make_shared<LoadedTable>();
  Status const s = read_table_file(path, table.get());
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(environment_mutex());
    auto& tables = environment_storage().tables;
    tables.insert(tables.begin(), std::move(table));
  }
  generation().fetch_add(1, std::memory_order_acq_rel);
  return Status::success();
}

/// What a choice depends on besides the AutoGemm's types.
struct ChoiceKey {
  std::int64_t m = 0, n = 0, k = 0, l = 1;
  int sm_count = 0, split_k = 1, band_m = 0;
  bool has_workspace = false;
  std::size_t forced_name_hash = 0;  // of Arguments::force_policy (0: none)
  bool operator==(ChoiceKey const& o) const {
    return m == o.m && n == o.n && k == o.k && l == o.l && sm_count == o.sm_count &&
           split_k == o.split_k && band_m == o.band_m && has_workspace == o.has_workspace &&
           forced_name_hash == o.forced_name_hash;
  }
};
struct ChoiceKeyHash {
  std::size_t operator()(ChoiceKey const& key) const {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(std::uint64_t(key.m)), mix(std::uint64_t(key.n)), mix(std::uint64_t(key.k));
    mix(std::uint64_t(key.l));
    mix(std::uint64_t(key.sm_count)), mix(std::uint64_t(key.split_k));
    mix(std::uint64_t(key.band_m)), mix(key.has_workspace), mix(key.forced_name_hash);
    return std::size_t(h);
  }
};

/// A mutex-protected map from key to choice. A hit is one uncontended lock, one hash of nine
/// integers and one bucket probe, and copies three ints out (lookup) or the Choice (its strings:
/// get): well under 1 us (tests/unit/device/auto_gemm_selection_test.cpp times 10^5 hits).
class ChoiceCache {
 public:
  struct Decision {
    int index = -1, split_k = 1, band_m = 0;
  };
  bool lookup(ChoiceKey const& key, Decision* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_generation();
    auto const it = map_.find(key);
    if (it == map_.end()) return false;
    *out = {it->second.index, it->second.split_k, it->second.band_m};
    return true;
  }
  bool get(ChoiceKey const& key, Choice* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_generation();
    auto const it = map_.find(key);
    if (it == map_.end()) return false;
    *out = it->second;
    return true;
  }
  /// Inserts unless present (two threads may compute the same choice; they agree). True: new.
  bool insert(ChoiceKey const& key, Choice const& c) {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_generation();
    return map_.emplace(key, c).second;
  }
  /// The same for a choice decided in generation `decided_in` (read before deciding): not
  /// inserted when the generation has moved on since (load_table, reset_for_testing), since the
  /// choice may have seen the tables before it. False then.
  bool insert(ChoiceKey const& key, Choice const& c, unsigned decided_in) {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_generation();
    if (decided_in != generation_) return false;
    return map_.emplace(key, c).second;
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    sync_generation();
    return map_.size();
  }

 private:
  void sync_generation() {
    unsigned const g = generation().load(std::memory_order_acquire);
    if (g != generation_) map_.clear(), generation_ = g;
  }
  std::mutex mutex_;
  unsigned generation_ = 0;
  std::unordered_map<ChoiceKey, Choice, ChoiceKeyHash> map_;
};

}  // namespace fp8gemm::selection
