// SPDX-License-Identifier: MIT
// The dense op's kernels for one scale recipe (one file per recipe so they compile in parallel).
#include "torch_ops.hpp"

namespace fp8gemm::torch_ops {
void dense_mx32(DenseCall& c) {
  dense_impl<Recipe::kMx32>(c);
}
}  // namespace fp8gemm::torch_ops
