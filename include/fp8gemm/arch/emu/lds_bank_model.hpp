// SPDX-License-Identifier: MIT
/// Host emulator (arch layer): LDS bank-conflict model. Every lane reports its LDS accesses
/// (address, width, direction); they are grouped into wave instructions at each workgroup barrier,
/// and per-site cost (extra cycles from bank conflicts) accumulates in a process-wide table.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "fp8gemm/arch/emu/runtime.hpp"

namespace fp8gemm::emu {

inline constexpr int kLdsBankBytes = 4;

/// Cost of one LDS instruction of one wave.
struct LdsConflict {
  int phases = 0;        // groups of lanes served together: lanes / (banks * 4 / width)
  int max_degree = 0;    // worst phase: most distinct dwords that map to one bank
  int extra_cycles = 0;  // sum over phases of (degree - 1)
};

/// Bank conflicts of one instruction: lane l (l < lanes, active[l] or active == nullptr) accesses
/// width_bytes (1, 2, 4, 8 or 16) at byte_offsets[l]. A phase holds banks*4/width lanes (at least 4
/// bytes counted per lane); its degree is the largest number of distinct dwords mapped to one bank,
/// bank = (offset/4 + i) % banks. Several lanes reading the same dword is a broadcast, not a
/// conflict.
inline LdsConflict lds_bank_conflicts(std::uint32_t const* byte_offsets, bool const* active,
                                      int lanes, int width_bytes, int banks) {
  if (width_bytes != 1 && width_bytes != 2 && width_bytes != 4 && width_bytes != 8 &&
      width_bytes != 16)
    throw std::invalid_argument("lds_bank_conflicts: width must be 1, 2, 4, 8 or 16 bytes");
  if (banks < 1 || banks > 256) throw std::invalid_argument("lds_bank_conflicts: banks");
  int const dwords = std::max(width_bytes / kLdsBankBytes, 1);
  int const lanes_per_phase = banks / dwords;  // = banks * 4 / width for width >= 4
  LdsConflict out;
  std::vector<std::uint32_t> words;  // distinct dwords of one phase
  std::vector<int> per_bank(banks);  // distinct dwords per bank
  words.reserve(static_cast<std::size_t>(lanes_per_phase) * dwords);
  for (int first = 0; first < lanes; first += lanes_per_phase) {
    ++out.phases;
    words.clear();
    int const last = std::min(first + lanes_per_phase, lanes);
    for (int l = first; l < last; ++l) {
      if (active && !active[l]) continue;
      std::uint32_t const dword = byte_offsets[l] / kLdsBankBytes;
      for (int i = 0; i < dwords; ++i) words.push_back(dword + i);
    }
    if (words.empty()) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::fill(per_bank.begin(), per_bank.end(), 0);
    int degree = 0;
    for (std::uint32_t w : words) degree = std::max(degree, ++per_bank[w % banks]);
    out.max_degree = std::max(out.max_degree, degree);
    out.extra_cycles += degree - 1;
  }
  return out;
}

/// Accumulated cost of one LDS access site: a named LDS region and a direction, e.g. "A read".
struct LdsSiteStats {
  std::string site;
  int width = 0;                   // bytes per lane of the site's accesses (the widest, if several)
  std::uint64_t instructions = 0;  // wave-level instructions
  std::uint64_t reads = 0;         // of which reads
  std::uint64_t bytes = 0;         // bytes moved by the active lanes
  std::uint64_t extra_cycles = 0;  // sum of LdsConflict::extra_cycles
  int max_degree = 0;              // worst conflict degree seen
};

/// A named byte range [begin, end) of the workgroup's LDS (e.g. the A stages); accesses are
/// reported per region and direction. Offsets outside every region count as "LDS".
struct LdsRegion {
  std::string name;
  std::uint32_t begin = 0, end = 0;
};

/// Process-wide, thread-safe table of LdsSiteStats; off by default (then lds_access costs one
/// load).
///
/// How accesses become instructions, with no help from the kernel: every lane's access is logged
/// with its key (region, direction, width) and its ordinal among the lane's accesses of that key
/// since the last workgroup barrier; at the barrier (and at the workgroup's end) the accesses of
/// one wave with equal key and ordinal form one instruction. Lanes that skipped an access (a
/// masked store) are absent from it, as on the GPU, provided that what they skip is the last
/// access of its key before the next barrier (true of every kernel here: the mk_kn_mn B copy's
/// threads without a unit skip all of theirs); a lane that skipped one and then made another
/// access of the same region, direction and width would have that access counted one instruction
/// early.
class LdsBankRecorder {
 public:
  static LdsBankRecorder& instance() {
    static LdsBankRecorder recorder;
    return recorder;
  }

  /// Switch between launches only: every lane of a wave must see the same setting.
  void set_enabled(bool on);
  std::uint64_t generation() const;
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  /// Regions to report by (set between launches); an empty list reports one region, "LDS".
  void set_regions(std::vector<LdsRegion> regions) {
    std::lock_guard<std::mutex> lock(mutex_);
    regions_ = std::move(regions);
  }
  std::vector<LdsRegion> regions() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return regions_;
  }

  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    table_.clear();
  }

  void record(std::string const& site, int width, std::uint64_t bytes, bool is_write,
              LdsConflict c) {
    std::lock_guard<std::mutex> lock(mutex_);
    LdsSiteStats& s = table_[site];
    s.site = site;
    s.width = std::max(s.width, width);
    ++s.instructions;
    s.reads += is_write ? 0 : 1;
    s.bytes += bytes;
    s.extra_cycles += static_cast<std::uint64_t>(c.extra_cycles);
    s.max_degree = std::max(s.max_degree, c.max_degree);
  }

  /// All sites, sorted by name.
  std::vector<LdsSiteStats> snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<LdsSiteStats> out;
    for (auto const& entry : table_) out.push_back(entry.second);
    return out;  // std::map: already sorted
  }

  /// Stats for one site name; all zero when it was never recorded.
  LdsSiteStats site(std::string const& name) const {
    for (LdsSiteStats& s : snapshot())
      if (s.site == name) return s;
    LdsSiteStats none;
    none.site = name;
    return none;
  }

  /// One line per site: instructions, bytes, extra cycles and their mean per instruction.
  std::string report() const {
    std::string out = "LDS bank conflicts (extra cycles per wave instruction)\n";
    char line[256];
    for (LdsSiteStats const& s : snapshot()) {
      double const mean =
          s.instructions ? static_cast<double>(s.extra_cycles) / static_cast<double>(s.instructions)
                         : 0.0;
      std::snprintf(
          line, sizeof line,
          "  %-24s %2d B %10llu instr (%llu rd) %12llu B %10llu extra cyc  %.2f/instr  max "
          "degree %d\n",
          s.site.c_str(), s.width, static_cast<unsigned long long>(s.instructions),
          static_cast<unsigned long long>(s.reads), static_cast<unsigned long long>(s.bytes),
          static_cast<unsigned long long>(s.extra_cycles), mean, s.max_degree);
      out += line;
    }
    return out;
  }

 private:
  std::atomic<bool> enabled_{false};
  mutable std::mutex mutex_;
  std::vector<LdsRegion> regions_;
  std::map<std::string, LdsSiteStats> table_;
};

namespace detail {

/// The accesses of the workgroup running on this OS thread since its last barrier.
struct LdsLog {
  static constexpr int kWidthCodes = 5;  // 1, 2, 4, 8, 16 bytes
  static constexpr int kMaxRegions = 16;
  struct Entry {
    int wave, key, ordinal, lane;
    std::uint32_t offset;
  };
  std::vector<Entry> entries;
  std::vector<int> ordinals;  // [thread][key]: accesses of that key so far
  std::vector<LdsRegion> regions;
  std::uint64_t generation = 0;  // of the recorder's settings the regions were loaded from
  int wave_size = 64, banks = 32;

  static int width_code(int width) {
    return width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : width == 8 ? 3 : 4;
  }
  static int key(int region, bool is_write, int width) {
    return (region * 2 + (is_write ? 1 : 0)) * kWidthCodes + width_code(width);
  }

  /// Groups the log into wave instructions, records them, and starts a new interval.
  void flush(int wave_size, int banks) {
    if (entries.empty()) return;
    std::sort(entries.begin(), entries.end(), [](Entry const& a, Entry const& b) {
      return std::tie(a.wave, a.key, a.ordinal, a.lane) <
             std::tie(b.wave, b.key, b.ordinal, b.lane);
    });
    std::vector<std::uint32_t> offsets(static_cast<std::size_t>(wave_size));
    std::vector<char> active(static_cast<std::size_t>(wave_size));
    for (std::size_t i = 0; i < entries.size();) {
      std::size_t j = i;
      std::fill(active.begin(), active.end(), 0);
      int lanes = 0;
      for (; j < entries.size() && entries[j].wave == entries[i].wave &&
             entries[j].key == entries[i].key && entries[j].ordinal == entries[i].ordinal;
           ++j) {
        offsets[entries[j].lane] = entries[j].offset;
        active[entries[j].lane] = 1;
        ++lanes;
      }
      int const k = entries[i].key;
      int const width = 1 << (k % kWidthCodes);
      bool const is_write = (k / kWidthCodes) % 2 == 1;
      int const region = k / kWidthCodes / 2;
      bool act[256];
      for (int l = 0; l < wave_size && l < 256; ++l) act[l] = active[l] != 0;
      LdsConflict const c = lds_bank_conflicts(offsets.data(), act, wave_size, width, banks);
      std::string const name =
          region < static_cast<int>(regions.size()) ? regions[region].name : "LDS";
      LdsBankRecorder::instance().record(name + (is_write ? " write" : " read"), width,
                                         static_cast<std::uint64_t>(lanes) * width, is_write, c);
      i = j;
    }
    entries.clear();
    std::fill(ordinals.begin(), ordinals.end(), 0);
  }
};
inline thread_local LdsLog tls_lds_log;

/// runtime.hpp's block_sync_hook while recording: runs on the workgroup's OS thread.
inline void flush_lds_log() {
  tls_lds_log.flush(tls_lds_log.wave_size, tls_lds_log.banks);
}

inline std::atomic<std::uint64_t> recorder_generation{0};

}  // namespace detail
inline void LdsBankRecorder::set_enabled(bool on) {
  detail::recorder_generation.fetch_add(1, std::memory_order_relaxed);
  enabled_.store(on, std::memory_order_relaxed);
  detail::block_sync_hook.store(on ? &detail::flush_lds_log : nullptr, std::memory_order_relaxed);
}
inline std::uint64_t LdsBankRecorder::generation() const {
  return detail::recorder_generation.load(std::memory_order_relaxed);
}

/// Turns recording on (and clears the table) for a scope, reporting by `regions`; restores the
/// previous setting after.
class LdsRecordingScope {
 public:
  explicit LdsRecordingScope(std::vector<LdsRegion> regions = {})
      : was_enabled_(LdsBankRecorder::instance().enabled()) {
    LdsBankRecorder::instance().reset();
    LdsBankRecorder::instance().set_regions(std::move(regions));
    LdsBankRecorder::instance().set_enabled(true);
  }
  ~LdsRecordingScope() {
    LdsBankRecorder::instance().set_enabled(was_enabled_);
    LdsBankRecorder::instance().set_regions({});
  }
  LdsRecordingScope(LdsRecordingScope const&) = delete;
  LdsRecordingScope& operator=(LdsRecordingScope const&) = delete;

 private:
  bool was_enabled_;
};

/// Reports one LDS access of the calling lane: `width_bytes` at `address` in the workgroup's LDS.
/// Lanes may diverge (see LdsBankRecorder). When recording is off, returns at once.
inline void lds_access(void const* address, int width_bytes, bool is_write) {
  LdsBankRecorder& recorder = LdsBankRecorder::instance();
  if (!recorder.enabled()) return;
  detail::LdsLog& log = detail::tls_lds_log;
  if (log.generation != recorder.generation()) {
    log.regions = recorder.regions();
    log.generation = recorder.generation();
    log.entries.clear();
  }
  auto const offset = static_cast<std::uint32_t>(static_cast<std::uint8_t const*>(address) -
                                                 static_cast<std::uint8_t const*>(shared_memory()));
  int region = static_cast<int>(log.regions.size());  // "LDS": outside every named region
  for (int r = 0; r < static_cast<int>(log.regions.size()); ++r)
    if (offset >= log.regions[r].begin && offset < log.regions[r].end) region = r;
  if (region >= detail::LdsLog::kMaxRegions)
    throw std::logic_error("lds_access: too many LDS regions");
  int const threads = block_dim();
  int const keys = detail::LdsLog::kMaxRegions * 2 * detail::LdsLog::kWidthCodes;
  if (static_cast<int>(log.ordinals.size()) != threads * keys)
    log.ordinals.assign(static_cast<std::size_t>(threads) * keys, 0);
  log.wave_size = wave_size();
  log.banks = lds_banks();
  int const key = detail::LdsLog::key(region, is_write, width_bytes);
  int const tid = thread_idx();
  log.entries.push_back({wave_id(), key, log.ordinals[static_cast<std::size_t>(tid) * keys + key]++,
                         lane_id(), offset});
}

}  // namespace fp8gemm::emu
