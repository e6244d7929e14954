# SPDX-License-Identifier: MIT
# cmake -DMODE=find_package|add_subdirectory -DFP8GEMM_SOURCE_DIR=.. -DCONSUMER_DIR=.. -DWORK_DIR=..
#       [-DGENERATOR=..] [-DCXX_COMPILER=..] -P run_consumer.cmake
foreach(_v MODE FP8GEMM_SOURCE_DIR CONSUMER_DIR WORK_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "run_consumer: ${_v} not set")
  endif()
endforeach()

function(run)
  string(REPLACE ";" " " _pretty "${ARGN}")
  message(STATUS "+ ${_pretty}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "command failed (${_rc}): ${_pretty}\n${_out}")
  endif()
  set(RUN_OUTPUT "${_out}" PARENT_SCOPE)
endfunction()

set(_gen "")
if(GENERATOR)
  set(_gen -G "${GENERATOR}")
endif()
set(_cxx "")
if(CXX_COMPILER)
  set(_cxx "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

if(MODE STREQUAL "find_package")
  set(_prefix "${WORK_DIR}/prefix")
  # fp8gemm is the top-level project here, so its test/bench/example options exist: turn them off.
  run(${CMAKE_COMMAND} -S "${FP8GEMM_SOURCE_DIR}" -B "${WORK_DIR}/fp8gemm-build" ${_gen} ${_cxx}
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=${_prefix}"
      -DFP8GEMM_BUILD_TESTS=OFF -DFP8GEMM_BUILD_BENCH=OFF -DFP8GEMM_BUILD_EXAMPLES=OFF
      -DFP8GEMM_ENABLE_CUDA=OFF)
  run(${CMAKE_COMMAND} --build "${WORK_DIR}/fp8gemm-build")
  run(${CMAKE_COMMAND} --install "${WORK_DIR}/fp8gemm-build")
  foreach(_f include/fp8gemm/config.hpp include/fp8gemm/status.hpp)
    if(NOT EXISTS "${_prefix}/${_f}")
      message(FATAL_ERROR "install did not produce ${_prefix}/${_f}")
    endif()
  endforeach()
  file(GLOB_RECURSE _cfg "${_prefix}/*/fp8gemmConfig.cmake")
  if(NOT _cfg)
    message(FATAL_ERROR "install did not produce fp8gemmConfig.cmake under ${_prefix}")
  endif()
  # The consumer must find the installed copy, not the source tree: nothing points at the source dir.
  run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer-build" ${_gen} ${_cxx}
      -DCMAKE_BUILD_TYPE=Release -DCONSUMER_MODE=find_package "-DCMAKE_PREFIX_PATH=${_prefix}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(NOT RUN_OUTPUT MATCHES "fp8gemm_DIR=${_prefix}")
    message(FATAL_ERROR "consumer did not use the installed package:\n${RUN_OUTPUT}")
  endif()
elseif(MODE STREQUAL "add_subdirectory")
  run(${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${WORK_DIR}/consumer-build" ${_gen} ${_cxx}
      -DCMAKE_BUILD_TYPE=Release -DCONSUMER_MODE=add_subdirectory
      "-DFP8GEMM_SOURCE_DIR=${FP8GEMM_SOURCE_DIR}")
else()
  message(FATAL_ERROR "run_consumer: unknown MODE '${MODE}'")
endif()

run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
find_program(_exe NAMES fp8gemm_consumer PATHS "${WORK_DIR}/consumer-build" PATH_SUFFIXES Release Debug
             NO_DEFAULT_PATH)
if(NOT _exe)
  message(FATAL_ERROR "fp8gemm_consumer was not built")
endif()
run("${_exe}")
message(STATUS "${RUN_OUTPUT}")
message(STATUS "package test (${MODE}) passed")
