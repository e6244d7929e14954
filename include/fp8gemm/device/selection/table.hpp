// SPDX-License-Identifier: MIT
/// The format of AutoGemm's measured tables (tier 1, device layer): the classes an entry is keyed
/// by and the entry itself. The tables are generated (bench/make_table.py from fp8gemm_tune's
/// JSON); entries name their candidate by short or full name, never by index, so reordering the
/// candidate list cannot make an entry pick another kernel.
#pragma once

#include <cstddef>

namespace fp8gemm::selection {

enum class GranularityClass { kPerTensor, kPerChannel, kBlockwise, kMx32 };
enum class AccumulationClass { kPromoted, kFast };
enum class EpilogueClass { kIdentity, kGeluTanh, kGeluErf, kOther };

/// One measured range: for these classes and (N, K), M in [m_lo, m_hi] runs `candidate` (a short
/// name of selection/targets.hpp or a Gemm::name()) with split_k.
struct TableEntry {
  GranularityClass granularity;
  AccumulationClass accumulation;
  EpilogueClass epilogue;
  int n, k;
  int m_lo, m_hi;
  char const* candidate;
  int split_k;
};

/// A table and the SM count it was measured on (looked up only when the call plans for it).
struct TableView {
  TableEntry const* entries = nullptr;
  std::size_t size = 0;
  int sm_count = 0;
  char const* provenance = "";
};

}  // namespace fp8gemm::selection
