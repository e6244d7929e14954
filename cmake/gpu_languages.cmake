# SPDX-License-Identifier: MIT
# Detects the optional GPU toolchains. Nothing here is required: with neither, every host-side
# target (numerics, quantization, reference, CDNA host emulator) still builds and tests.
#   FP8GEMM_HAVE_CUDA            nvcc found; CUDA targets are built for FP8GEMM_CUDA_ARCHITECTURES
#   FP8GEMM_HAVE_AMD_TOOLCHAIN   clang-22 + unpacked ROCm headers/device libs (cmake/amd_toolchain.cmake)
include(CheckLanguage)

option(FP8GEMM_ENABLE_CUDA "Build the CUDA (Hopper) targets when nvcc is found" ON)
set(FP8GEMM_CUDA_ARCHITECTURES "90a" CACHE STRING "CUDA architectures for the GPU tests and benchmarks")

set(FP8GEMM_HAVE_CUDA OFF)
if(FP8GEMM_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${FP8GEMM_CUDA_ARCHITECTURES})
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(FP8GEMM_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "fp8gemm: CUDA targets ${FP8GEMM_HAVE_CUDA} (architectures ${FP8GEMM_CUDA_ARCHITECTURES})")

include(amd_toolchain OPTIONAL RESULT_VARIABLE fp8gemm_amd_module)
if(NOT fp8gemm_amd_module)
  set(FP8GEMM_HAVE_AMD_TOOLCHAIN OFF)
endif()
message(STATUS "fp8gemm: AMD toolchain ${FP8GEMM_HAVE_AMD_TOOLCHAIN}")

# CI sets this (.ci/run): a missing toolchain must fail the run, not quietly drop the ISA checks of
# the CDNA kernels or the ptxas / SASS checks of the WGMMA kernels.
option(FP8GEMM_REQUIRE_TOOLCHAINS "Fail the configure when nvcc or the AMD toolchain is missing" OFF)
if(FP8GEMM_REQUIRE_TOOLCHAINS AND NOT FP8GEMM_HAVE_CUDA)
  message(FATAL_ERROR "fp8gemm: FP8GEMM_REQUIRE_TOOLCHAINS is on and nvcc was not found (or "
                      "FP8GEMM_ENABLE_CUDA is off): the WGMMA kernels' ptxas and SASS checks need it")
endif()
if(FP8GEMM_REQUIRE_TOOLCHAINS AND NOT FP8GEMM_HAVE_AMD_TOOLCHAIN)
  message(FATAL_ERROR "fp8gemm: FP8GEMM_REQUIRE_TOOLCHAINS is on and the AMD toolchain (clang-22 "
                      "with the unpacked ROCm pieces, scripts/install_deps.sh) was not found: the "
                      "gfx942 / gfx950 ISA checks need it")
endif()
