// SPDX-License-Identifier: MIT
// The grouped op's kernels (AutoGroupedGemm), every recipe it carries.
#include "kernels.hpp"

namespace fp8gemm::torch_ops {
void grouped(GroupedCall const& c) {
  switch (c.recipe) {
    case Recipe::kTensor:
      return grouped_impl<Recipe::kTensor>(c);
    case Recipe::kRow:
      return grouped_impl<Recipe::kRow>(c);
    case Recipe::kBlock:
      return grouped_impl<Recipe::kBlock>(c);
    case Recipe::kMx32:
      return grouped_impl<Recipe::kMx32>(c);
  }
}
}  // namespace fp8gemm::torch_ops
