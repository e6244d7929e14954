// SPDX-License-Identifier: MIT
// The library's GEMM kernels for the ISA checks: explicit instantiations of
// arch::kernel_entry<isa::NamedKernel<Config>> for every config of isa_kernels.hpp that targets the
// arch being compiled (--offload-arch=gfx942 or gfx950 --offload-device-only -S; isa_check_test.cpp
// reads the assembly).
#include "isa_kernels.hpp"

#define FP8GEMM_ISA_INSTANTIATE(config)                                         \
  template __global__ void                                                      \
  fp8gemm::arch::kernel_entry<fp8gemm::isa::NamedKernel<fp8gemm::isa::config>>( \
      fp8gemm::isa::config::Params const);

#if defined(__gfx942__)
FP8GEMM_ISA_GFX942_CONFIGS(FP8GEMM_ISA_INSTANTIATE)
#elif defined(__gfx950__)
FP8GEMM_ISA_GFX950_CONFIGS(FP8GEMM_ISA_INSTANTIATE)
#endif
