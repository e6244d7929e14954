// SPDX-License-Identifier: MIT
/// The operand checks every mainloop's can_implement starts with (mainloop layer): A and B present,
/// their leading dimensions at least a row, and, for vector loads, rows that start aligned.
#pragma once

#include <cstdint>
#include <string>

#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// A [M, K] and B ([N, K] for kNK, [K, N] for kKN): non-null, lda >= K, ldb >= its row.
template <class ElementA, class ElementB>
Status check_operands(MatrixView<ElementA> const& a, MatrixView<ElementB> const& b,
                      LayoutB layout) {
  auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
  if (a.data == nullptr) return fail(StatusCode::kErrorNullPointer, "A is null");
  if (b.data == nullptr) return fail(StatusCode::kErrorNullPointer, "B is null");
  if (a.ld < a.cols)
    return fail(StatusCode::kErrorLeadingDimension,
                "lda (" + std::to_string(a.ld) + ") must be >= K (" + std::to_string(a.cols) + ")");
  if (b.ld < b.cols)
    return fail(StatusCode::kErrorLeadingDimension,
                std::string("ldb (") + std::to_string(b.ld) +
                    ") must be >= " + (layout == LayoutB::kNK ? "K" : "N") + " (" +
                    std::to_string(b.cols) + ") for " + layout_name(layout));
  return Status::success();
}

/// check_operands, then 16-byte vector loads of every row: A, B and both row pitches aligned.
template <class ElementA, class ElementB>
Status check_operands_for_vector_loads(MatrixView<ElementA> const& a, MatrixView<ElementB> const& b,
                                       LayoutB layout) {
  FP8GEMM_RETURN_IF_ERROR(check_operands(a, b, layout));
  auto pitch = [](char const* name, std::int64_t ld) {
    return Status::error(StatusCode::kErrorMisaligned,
                         std::string(name) +
                             " must be a multiple of 16 (16-byte vector loads of every row); got " +
                             name + "=" + std::to_string(ld) + ": pad the leading dimension");
  };
  FP8GEMM_RETURN_IF_ERROR(check_aligned(a.data, 16, "A", "16-byte vector loads"));
  if (a.ld % 16 != 0) return pitch("lda", a.ld);
  FP8GEMM_RETURN_IF_ERROR(check_aligned(b.data, 16, "B", "16-byte vector loads"));
  if (b.ld % 16 != 0) return pitch("ldb", b.ld);
  return Status::success();
}

}  // namespace fp8gemm
