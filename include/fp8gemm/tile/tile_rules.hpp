// SPDX-License-Identifier: MIT
/// The tile layer's compile-time rules as values (tile/global_to_lds.hpp's copies and
/// tile/lds_layout.hpp's fragment-read layout): each sentence next to the constexpr test that the
/// static_asserts and the mainloops' rule traits (mainloop/mainloop_rules.hpp) share.
#pragma once

#include "fp8gemm/policy/rule.hpp"

namespace fp8gemm::tile_rules {

#define FP8GEMM_RULE_FRAGMENT_READ_PITCH                                                 \
  "BlockK must be an even multiple of the atom's LDS read width: then the padded pitch " \
  "is an odd number of reads and the fragment reads are free of bank conflicts"
constexpr bool fragment_reads_conflict_free(int block_k, int read_bytes) {
  return rules::divides(2 * read_bytes, block_k);
}

#define FP8GEMM_RULE_COPY_ROW_VECTORS "tile rows are copied as 16-byte vectors"
constexpr bool rows_are_vectors(int row_bytes) {
  return row_bytes % 16 == 0;
}

#define FP8GEMM_RULE_COPY_VECTORS \
  "each thread must copy a whole number of 16-byte vectors of the A and B tiles"
constexpr bool whole_vectors_per_thread(int rows, int row_bytes, int threads) {
  return rules::divides(threads, rows * (row_bytes / 16));
}

#define FP8GEMM_RULE_ASYNC_COPY_VECTORS "async copies write 16-byte LDS vectors"
constexpr bool async_vectors(int pitch) {
  return pitch % 16 == 0;
}

#define FP8GEMM_RULE_KN_B_BLOCKS                                                         \
  "mk_kn_mn: B is copied as 4 (k) x 16 (n) blocks, whole blocks per thread (or at most " \
  "one per thread when the tile has fewer blocks than threads)"
constexpr bool transposed_b_blocks(int rows, int row_bytes, int threads) {
  int const units = rows / 16 * (row_bytes / 4);
  return threads > 0 && rows % 16 == 0 && (units % threads == 0 || units < threads);
}

}  // namespace fp8gemm::tile_rules
