# SPDX-License-Identifier: MIT
# Test helpers. Every test is one gtest binary registered as one ctest entry with labels:
#   host      needs no GPU and no AMD toolchain
#   emulator  runs the CDNA kernels on the host emulator
#   isa       compiles for gfx942/gfx950 and checks the emitted code (needs the AMD toolchain)
#   gpu       needs a GPU (built everywhere nvcc exists, run only on the GPU machine)
if(FP8GEMM_BUILD_TESTS OR FP8GEMM_BUILD_EXAMPLES)  # the demo links the test helpers' headers only
  find_package(GTest REQUIRED)
endif()
find_package(Threads REQUIRED)

set(FP8GEMM_WARNINGS -Wall -Wextra)
# nvcc: the host compiler's warnings plus nvcc's own front-end diagnostics (e.g. #177-D unused,
# #2810-D ignored [[nodiscard]]), errors too under FP8GEMM_WERROR. No --expt-relaxed-constexpr:
# users' translation units must not need it, so ours do not use it either.
set(FP8GEMM_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra)
if(FP8GEMM_WERROR)
  list(APPEND FP8GEMM_WARNINGS -Werror)
  set(FP8GEMM_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra,-Werror --Werror=all-warnings)
endif()

# fp8gemm_add_host_test(<name> SOURCES ... LABELS ... [LIBS ...])
function(fp8gemm_add_host_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fp8gemm::fp8gemm fp8gemm_test_common GTest::gtest_main
                                        Threads::Threads ${ARG_LIBS})
  target_compile_options(${name} PRIVATE ${FP8GEMM_WARNINGS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()

# fp8gemm_add_cuda_test(<name> SOURCES ... [LIBS ...]): built with nvcc, label gpu.
function(fp8gemm_add_cuda_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fp8gemm::fp8gemm fp8gemm_test_common GTest::gtest_main
                                        CUDA::cudart ${ARG_LIBS})
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:${FP8GEMM_CUDA_WARNINGS} -lineinfo>
    $<$<COMPILE_LANGUAGE:CXX>:${FP8GEMM_WARNINGS}>)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "gpu")
endfunction()
