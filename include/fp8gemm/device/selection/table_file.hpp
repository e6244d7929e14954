// SPDX-License-Identifier: MIT
/// Measured tables read at run time (device layer): a table fp8gemm_tune measured on the user's
/// GPU, written as CSV by bench/make_table.py --csv, read by AutoGemm without recompiling (the
/// FP8GEMM_TABLE environment variable or selection::load_table, choice.hpp). The format, '#'
/// lines and blank lines ignored:
///
///   target,sm90                                  the Target::kName it is for
///   sm_count,114                                 looked up when a call plans for that many SMs
///   provenance,NVIDIA H100 PCIe 2026-12-07 ...   free text, quoted in explain()
///   granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k
///   per_tensor,promoted,identity,4096,4096,1,8,sm90_wgmma_decode8,1
///   ...
///
/// granularity: per_tensor | per_channel | blockwise | mx32; accumulation: promoted | fast;
/// epilogue: identity | gelu_tanh | gelu_erf | other; candidate: a short name of
/// selection/targets.hpp or a Gemm::name(). Every line is checked; the first bad one is the
/// error, with its file and line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <fstream>
#include <istream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fp8gemm/device/selection/table.hpp"
#include "fp8gemm/status.hpp"

namespace fp8gemm::selection {

/// A table read from a file: its entries point into `names` (a deque: stable addresses).
struct LoadedTable {
  std::string target;
  int sm_count = 0;
  std::string provenance;
  std::string source;  // the file (or the name the caller gave)
  std::deque<std::string> names;
  std::vector<TableEntry> entries;
  std::string provenance_note;  // "<source>: <provenance>", what TableView points at

  LoadedTable() = default;
  LoadedTable(LoadedTable&&) = default;  // a deque's move keeps its elements where they are
  LoadedTable& operator=(LoadedTable&&) = default;
  LoadedTable(LoadedTable const&) = delete;  // a copy's entries would point into the original
  LoadedTable& operator=(LoadedTable const&) = delete;

  TableView view() const {
    return {entries.data(), entries.size(), sm_count, provenance_note.c_str()};
  }
};

namespace table_file_detail {

inline std::vector<std::string> split_csv(std::string const& line) {
  std::vector<std::string> f;
  std::string cur;
  for (char ch : line) {
    if (ch == ',') {
      f.push_back(cur), cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  f.push_back(cur);
  for (std::string& s : f) {  // trim spaces and tabs
    std::size_t const b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  }
  return f;
}

/// A decimal integer in [lo, hi], the whole field.
inline bool parse_int(std::string const& s, std::int64_t lo, std::int64_t hi, std::int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  std::int64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + (ch - '0');
  }
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

/// The class a field names, from {name, class} pairs; false when it names none.
template <class E, std::size_t N>
bool parse_name(std::string const& s, std::pair<char const*, E> const (&names)[N], E* out) {
  for (auto const& [name, value] : names)
    if (s == name) return *out = value, true;
  return false;
}

/// "a, b or c": the names a field may take, for its error.
template <class E, std::size_t N>
std::string name_list(std::pair<char const*, E> const (&names)[N]) {
  std::string list;
  for (std::size_t i = 0; i < N; ++i)
    list += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + names[i].first;
  return list;
}

}  // namespace table_file_detail

/// Reads a table from `in` (`source` names it in errors and in explain()).
inline Status parse_table(std::istream& in, std::string const& source, LoadedTable* out) {
  using table_file_detail::name_list;
  using table_file_detail::parse_int;
  using table_file_detail::parse_name;
  using table_file_detail::split_csv;
  static std::pair<char const*, GranularityClass> const kGranularities[] = {
      {"per_tensor", GranularityClass::kPerTensor},
      {"per_channel", GranularityClass::kPerChannel},
      {"blockwise", GranularityClass::kBlockwise},
      {"mx32", GranularityClass::kMx32}};
  static std::pair<char const*, AccumulationClass> const kAccumulations[] = {
      {"promoted", AccumulationClass::kPromoted}, {"fast", AccumulationClass::kFast}};
  static std::pair<char const*, EpilogueClass> const kEpilogues[] = {
      {"identity", EpilogueClass::kIdentity},
      {"gelu_tanh", EpilogueClass::kGeluTanh},
      {"gelu_erf", EpilogueClass::kGeluErf},
      {"other", EpilogueClass::kOther}};
  LoadedTable t;
  t.source = source;
  bool in_entries = false;
  std::string line;
  int line_no = 0;
  auto fail = [&](std::string const& what) {
    return Status::error(StatusCode::kErrorInvalidArgument,
                         source + ":" + std::to_string(line_no) + ": " + what);
  };
  static char const* const kColumns =
      "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k";
  while (std::getline(in, line)) {
    ++line_no;
    std::size_t const first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<std::string> const f = split_csv(line);
    if (!in_entries) {
      if (f.size() == 9 && f[0] == "granularity") {
        std::string joined;
        for (std::size_t i = 0; i < f.size(); ++i) joined += (i ? "," : "") + f[i];
        if (joined != kColumns)
          return fail(std::string("the column line must be exactly \"") + kColumns + "\"");
        if (t.target.empty()) return fail("no \"target,<name>\" line before the columns");
        if (t.sm_count <= 0) return fail("no \"sm_count,<SMs>\" line before the columns");
        in_entries = true;
        continue;
      }
      if (f.size() < 2)
        return fail(
            "expected \"target,<name>\", \"sm_count,<SMs>\", \"provenance,<text>\" or "
            "the column line, got \"" +
            f[0] + "\"");
      if (f[0] == "target") {
        if (!t.target.empty()) return fail("a second target line");
        if (f.size() != 2 || (f[1] != "sm90" && f[1] != "cdna4" && f[1] != "cdna3"))
          return fail("target takes one of the library's targets: sm90, cdna4 or cdna3 (got \"" +
                      (f.size() > 1 ? f[1] : std::string()) + "\")");
        t.target = f[1];
      } else if (f[0] == "sm_count") {
        if (t.sm_count > 0) return fail("a second sm_count line");
        std::int64_t v = 0;
        if (f.size() != 2 || !parse_int(f[1], 1, 1 << 20, &v))
          return fail("sm_count takes one positive integer, got \"" + (f.size() > 1 ? f[1] : "") +
                      "\"");
        t.sm_count = int(v);
      } else if (f[0] == "provenance") {
        t.provenance = line.substr(line.find(',') + 1);  // free text, commas included
        std::size_t const b = t.provenance.find_first_not_of(" \t");
        t.provenance = b == std::string::npos ? std::string() : t.provenance.substr(b);
        while (!t.provenance.empty() && (t.provenance.back() == '\r' ||
                                         t.provenance.back() == ' ' || t.provenance.back() == '\t'))
          t.provenance.pop_back();
      } else {
        return fail("unknown header key \"" + f[0] +
                    "\" (target, sm_count, provenance, then the column line)");
      }
      continue;
    }
    if (f.size() != 9)
      return fail("an entry has 9 fields (" + std::string(kColumns) + "), this line " +
                  std::to_string(f.size()));
    TableEntry e{};
    if (!parse_name(f[0], kGranularities, &e.granularity))
      return fail("granularity \"" + f[0] + "\": " + name_list(kGranularities));
    if (!parse_name(f[1], kAccumulations, &e.accumulation))
      return fail("accumulation \"" + f[1] + "\": " + name_list(kAccumulations));
    if (!parse_name(f[2], kEpilogues, &e.epilogue))
      return fail("epilogue \"" + f[2] + "\": " + name_list(kEpilogues));
    std::int64_t n = 0, k = 0, lo = 0, hi = 0, sk = 0;
    constexpr std::int64_t kMaxDim = 2147483647;  // TableEntry holds ints
    if (!parse_int(f[3], 1, kMaxDim, &n)) return fail("n \"" + f[3] + "\": a positive integer");
    if (!parse_int(f[4], 1, kMaxDim, &k)) return fail("k \"" + f[4] + "\": a positive integer");
    if (!parse_int(f[5], 1, kMaxDim, &lo)) return fail("m_lo \"" + f[5] + "\": a positive integer");
    if (!parse_int(f[6], 1, kMaxDim, &hi)) return fail("m_hi \"" + f[6] + "\": a positive integer");
    if (lo > hi) return fail("m_lo " + f[5] + " > m_hi " + f[6]);
    if (f[7].empty()) return fail("no candidate name");
    if (!parse_int(f[8], 1, 64, &sk))
      return fail("split_k \"" + f[8] + "\": an integer in [1, 64]");
    e.n = int(n), e.k = int(k), e.m_lo = int(lo), e.m_hi = int(hi), e.split_k = int(sk);
    e.candidate = t.names.emplace_back(f[7]).c_str();
    t.entries.push_back(e);
  }
  if (!in_entries) return fail("no column line (" + std::string(kColumns) + ")");
  if (t.entries.empty()) return fail("no entries");
  t.provenance_note = "table " + t.source + (t.provenance.empty() ? "" : ": " + t.provenance);
  *out = std::move(t);
  return Status::success();
}

/// Reads a table file (parse_table's format).
inline Status read_table_file(std::string const& path, LoadedTable* out) {
  std::ifstream in(path);
  if (!in)
    return Status::error(
        StatusCode::kErrorInvalidArgument,
        path + ": cannot be opened (a table written by bench/make_table.py --csv)");
  return parse_table(in, path, out);
}

}  // namespace fp8gemm::selection
