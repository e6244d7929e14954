// SPDX-License-Identifier: MIT
/// The measured selection table for sm_90 (tier 1 of AutoGemm, device layer): the format of an
/// entry, and the H200 table, which is empty until a sweep fills it.
///
/// Provenance of kSm90H200Table:
///   status:  NOT YET MEASURED (no entries; AutoGemm falls through to the model, tier 2)
///   GPU:     NVIDIA H200 (132 SMs) -- to be recorded by the generating tool
///   clocks:  -- (SM clock during the sweep)
///   driver:  -- (driver and CUDA versions)
///   commit:  -- (fp8gemm commit the candidates were built at)
///   date:    --
/// A generated table replaces this file whole (header, provenance, entries); entries name their
/// candidate by short or full name, never by index, so reordering the candidate list cannot make
/// an entry pick another kernel.
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

/// The H200 table: empty (see the provenance above). One unused entry keeps the array legal C++;
/// kSm90H200TableSize = 0 says that none is real.
inline constexpr TableEntry kSm90H200Table[] = {
    {GranularityClass::kPerTensor, AccumulationClass::kPromoted, EpilogueClass::kIdentity, 0, 0, 1,
     0, "", 1},
};
inline constexpr std::size_t kSm90H200TableSize = 0;

constexpr TableView sm90_h200_table() {
  return {kSm90H200Table, kSm90H200TableSize, 132, "sm90_h200_table.hpp: not yet measured"};
}

}  // namespace fp8gemm::selection
