// SPDX-License-Identifier: MIT
/// Host emulator (arch layer): LDS bank-conflict model. Each wave's LDS instruction is reported by its
/// lanes through a wave collective; per-site cost (extra cycles from bank conflicts) accumulates in a
/// process-wide, thread-safe table.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "fp8gemm/arch/emu/runtime.hpp"

namespace fp8gemm::emu {

inline constexpr int kLdsBanksGfx950 = 64;
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
/// bank = (offset/4 + i) % banks. Several lanes reading the same dword is a broadcast, not a conflict.
inline LdsConflict lds_bank_conflicts(std::uint32_t const* byte_offsets, bool const* active,
                                      int lanes, int width_bytes, int banks) {
  if (width_bytes != 1 && width_bytes != 2 && width_bytes != 4 && width_bytes != 8 &&
      width_bytes != 16)
    throw std::invalid_argument("lds_bank_conflicts: width must be 1, 2, 4, 8 or 16 bytes");
  if (banks < 1 || banks > 256) throw std::invalid_argument("lds_bank_conflicts: banks");
  int const dwords = std::max(width_bytes / kLdsBankBytes, 1);
  int const lanes_per_phase = banks / dwords;  // = banks * 4 / width for width >= 4
  LdsConflict out;
  std::vector<std::uint32_t> words;   // distinct dwords of one phase
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

/// Accumulated cost of one LDS access site (e.g. "A fragment ds_read_b128").
struct LdsSiteStats {
  std::string site;
  std::uint64_t instructions = 0;  // wave-level instructions
  std::uint64_t reads = 0;         // of which reads
  std::uint64_t bytes = 0;         // bytes moved by the active lanes
  std::uint64_t extra_cycles = 0;  // sum of LdsConflict::extra_cycles
  int max_degree = 0;              // worst conflict degree seen
};

/// Process-wide, thread-safe table of LdsSiteStats; off by default (then lds_access costs one load).
class LdsBankRecorder {
 public:
  static LdsBankRecorder& instance() {
    static LdsBankRecorder recorder;
    return recorder;
  }

  /// Switch between launches only: every lane of a wave must see the same setting.
  void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    table_.clear();
  }

  void record(char const* site, std::uint64_t bytes, bool is_write, LdsConflict c) {
    std::lock_guard<std::mutex> lock(mutex_);
    LdsSiteStats& s = table_[site];
    ++s.instructions;
    s.reads += is_write ? 0 : 1;
    s.bytes += bytes;
    s.extra_cycles += static_cast<std::uint64_t>(c.extra_cycles);
    s.max_degree = std::max(s.max_degree, c.max_degree);
  }

  /// All sites, merged by name (the same literal may have several addresses), sorted by name.
  std::vector<LdsSiteStats> snapshot() const {
    std::vector<LdsSiteStats> out;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto const& entry : table_) {  // not a structured binding: lambdas capture it (C++17)
        char const* const& site = entry.first;
        LdsSiteStats const& s = entry.second;
        auto it = std::find_if(out.begin(), out.end(),
                               [&](LdsSiteStats const& o) { return o.site == site; });
        if (it == out.end()) {
          out.push_back(s);
          out.back().site = site;
        } else {
          it->instructions += s.instructions;
          it->reads += s.reads;
          it->bytes += s.bytes;
          it->extra_cycles += s.extra_cycles;
          it->max_degree = std::max(it->max_degree, s.max_degree);
        }
      }
    }
    std::sort(out.begin(), out.end(),
              [](LdsSiteStats const& a, LdsSiteStats const& b) { return a.site < b.site; });
    return out;
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
      std::snprintf(line, sizeof line,
                    "  %-40s %10llu instr (%llu rd) %12llu B %10llu extra cyc  %.2f/instr  max "
                    "degree %d\n",
                    s.site.c_str(), static_cast<unsigned long long>(s.instructions),
                    static_cast<unsigned long long>(s.reads),
                    static_cast<unsigned long long>(s.bytes),
                    static_cast<unsigned long long>(s.extra_cycles), mean, s.max_degree);
      out += line;
    }
    return out;
  }

 private:
  std::atomic<bool> enabled_{false};
  mutable std::mutex mutex_;
  std::unordered_map<char const*, LdsSiteStats> table_;  // keyed by the site literal's address
};

/// Turns recording on (and clears the table) for a scope; restores the previous setting after.
class LdsRecordingScope {
 public:
  LdsRecordingScope() : was_enabled_(LdsBankRecorder::instance().enabled()) {
    LdsBankRecorder::instance().reset();
    LdsBankRecorder::instance().set_enabled(true);
  }
  ~LdsRecordingScope() { LdsBankRecorder::instance().set_enabled(was_enabled_); }
  LdsRecordingScope(LdsRecordingScope const&) = delete;
  LdsRecordingScope& operator=(LdsRecordingScope const&) = delete;

 private:
  bool was_enabled_;
};

/// Reports one LDS access of the calling lane. Every lane of the wave must call it (uniform control
/// flow; pass active = false for a lane that is masked off). When recording is off, returns at once.
inline void lds_access(char const* site, std::uint32_t byte_offset, int width_bytes, bool is_write,
                       int banks, bool active = true) {
  if (!LdsBankRecorder::instance().enabled()) return;
  struct Access {
    char const* site;
    std::uint32_t offset;
    int width;
    int banks;
    bool is_write;
    bool active;
  };
  Access mine{site, byte_offset, width_bytes, banks, is_write, active};
  wave_collective(&mine, [](void** slots) {
    int const lanes = wave_lanes();
    std::uint32_t offsets[256];
    bool actives[256];
    if (lanes > 256) throw std::logic_error("lds_access: waves of more than 256 lanes");
    auto const& a0 = *static_cast<Access const*>(slots[0]);
    int active_lanes = 0;
    for (int l = 0; l < lanes; ++l) {
      auto const& a = *static_cast<Access const*>(slots[l]);
      if ((a.site != a0.site && std::strcmp(a.site, a0.site) != 0) || a.width != a0.width ||
          a.banks != a0.banks || a.is_write != a0.is_write) {
        throw std::logic_error(std::string("lds_access: lanes of one wave disagree on site, width, "
                                           "banks or direction at \"") +
                               a0.site + "\"");
      }
      offsets[l] = a.offset;
      actives[l] = a.active;
      active_lanes += a.active ? 1 : 0;
    }
    LdsConflict const c = lds_bank_conflicts(offsets, actives, lanes, a0.width, a0.banks);
    LdsBankRecorder::instance().record(
        a0.site, static_cast<std::uint64_t>(active_lanes) * static_cast<std::uint64_t>(a0.width),
        a0.is_write, c);
  });
}

}  // namespace fp8gemm::emu
