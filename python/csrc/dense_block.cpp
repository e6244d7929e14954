// SPDX-License-Identifier: MIT
// The dense op's kernels for one scale recipe (one file per recipe so they compile in parallel).
#include "kernels.hpp"

namespace fp8gemm::torch_ops {
void dense_block(DenseCall const& c) {
  dense_impl<Recipe::kBlock>(c);
}
}  // namespace fp8gemm::torch_ops
