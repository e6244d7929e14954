// SPDX-License-Identifier: MIT
/// clang HIP device build of the GPU quantizers (quantize_kernels.hpp) for gfx942 / gfx950, every
/// format x granularity instantiated (assembly only, nothing runs; the H200 runs them from nvcc).
#include "fp8gemm/quant/quantize_kernels.hpp"

namespace fp8gemm::test {

template <class T, class G>
Status quantize_with() {
  FP8GEMM_RETURN_IF_ERROR((quantize_a_gpu<T, G>({})));
  FP8GEMM_RETURN_IF_ERROR((quantize_b_gpu<T, G>({})));
  FP8GEMM_RETURN_IF_ERROR((amax_a_gpu<G>({})));
  FP8GEMM_RETURN_IF_ERROR((amax_b_gpu<G>({})));
  return scales_from_amax_gpu<T, G>({});
}

template <class T>
Status quantize_to() {
  FP8GEMM_RETURN_IF_ERROR((quantize_with<T, PerTensor>()));
  FP8GEMM_RETURN_IF_ERROR((quantize_with<T, PerChannel>()));
  FP8GEMM_RETURN_IF_ERROR((quantize_with<T, Blockwise<1, 128, 128>>()));
  return quantize_with<T, Mx32>();
}

Status quantize_every_format_and_granularity() {
  FP8GEMM_RETURN_IF_ERROR(quantize_to<e4m3fn>());
  FP8GEMM_RETURN_IF_ERROR(quantize_to<e5m2>());
  FP8GEMM_RETURN_IF_ERROR(quantize_to<e4m3fnuz>());
  return quantize_to<e5m2fnuz>();
}

}  // namespace fp8gemm::test
