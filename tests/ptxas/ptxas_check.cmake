# SPDX-License-Identifier: MIT
# Compiles SOURCE with nvcc -Xptxas -v for sm_90a and fails when ptxas reports a spill, a stack
# frame (local memory; with -DALLOW_SPILL_BYTES=N only more than N bytes of stack, spill stores or
# spill loads in one kernel), or a wgmma
# serialization for any kernel (the C75xx "Potential Performance Loss" lines, e.g. C7510, C7514,
# C7517, C7519, are ptxas *info*, not warnings, so -Werror does not catch them).
# With -DCUOBJDUMP, -DSASS_TOOL and -DSASS_BUDGETS="<promoted>;<blockwise>;<fast>" it then
# disassembles the object and runs sass_loop_check on it (QGMMA and no HMMA in every WGMMA kernel,
# the K loop's instructions per QGMMA within the budgets; sass_loop_check.cpp says why).
#   cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DINCLUDE=<dir;...> [-DEXPECT_FAILURE=ON]
#         [-DALLOW_SPILL_BYTES=<bytes>]
#         [-DCUOBJDUMP=<cuobjdump> -DSASS_TOOL=<sass_loop_check> -DSASS_BUDGETS=<a;b;c>
#          -DWORK=<file prefix> [-DSASS_L2_HINTED=<policy name>]] -P ptxas_check.cmake
# SASS_L2_HINTED: the policy whose kernels must carry L2 cache hints on their TMA copies (every
# other kernel must not; sass_loop_check.cpp).
set(_inc "")
foreach(_d IN LISTS INCLUDE)
  list(APPEND _inc "-I${_d}")
endforeach()
set(_object /dev/null)
if(SASS_TOOL)
  set(_object "${WORK}.o")
endif()
execute_process(
  COMMAND "${NVCC}" -std=c++17 -O3 ${_inc} -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
          -c "${SOURCE}" -o "${_object}"
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
set(_all "${_out}\n${_err}")
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${_rc}):\n${_all}")
endif()
string(REGEX MATCHALL "Used [0-9]+ registers" _kernels "${_all}")
list(LENGTH _kernels _n)
set(_problems "")
if(DEFINED ALLOW_SPILL_BYTES AND NOT ALLOW_SPILL_BYTES MATCHES "^[0-9]+$")
  message(FATAL_ERROR "ALLOW_SPILL_BYTES must be a number of bytes, got '${ALLOW_SPILL_BYTES}'")
endif()
string(REGEX MATCHALL "[1-9][0-9]* bytes (spill (stores|loads)|stack frame)" _spills "${_all}")
if(_spills AND DEFINED ALLOW_SPILL_BYTES)
  # a source whose kernels may spill a little (outside their K loops): only more than
  # ALLOW_SPILL_BYTES of stores, loads or stack in one kernel fails
  set(_over "")
  foreach(_s IN LISTS _spills)
    string(REGEX MATCH "^[0-9]+" _bytes "${_s}")
    if(_bytes GREATER ALLOW_SPILL_BYTES)
      list(APPEND _over "${_s}")
    endif()
  endforeach()
  if(_over)
    list(APPEND _problems "spills over ${ALLOW_SPILL_BYTES} bytes: ${_over}")
  else()
    message(STATUS "spills within ${ALLOW_SPILL_BYTES} bytes (allowed here): ${_spills}")
  endif()
elseif(_spills)
  list(APPEND _problems "spills: ${_spills}")
endif()
string(REGEX MATCHALL "[^\n]*(C75[0-9][0-9]|serializ)[^\n]*" _serial "${_all}")
if(_serial)
  list(APPEND _problems "wgmma serialization: ${_serial}")
endif()
if(_n EQUAL 0)
  message(FATAL_ERROR "no 'Used N registers' line in the ptxas output: is -Xptxas -v effective?\n${_all}")
endif()
if(EXPECT_FAILURE)
  if(NOT _problems)
    message(FATAL_ERROR "negative control: expected ptxas to report serialization or spills in "
                        "${SOURCE}, but it reported none (${_n} kernels):\n${_all}")
  endif()
  message(STATUS "negative control caught: ${_problems}")
elseif(_problems)
  message(FATAL_ERROR "${SOURCE}: ${_problems}")
else()
  if(DEFINED ALLOW_SPILL_BYTES)
    message(STATUS "${_n} kernels: spills within ${ALLOW_SPILL_BYTES} bytes, no wgmma serialization")
  else()
    message(STATUS "${_n} kernels: no spills, no wgmma serialization")
  endif()
endif()
if(SASS_TOOL)
  execute_process(COMMAND "${CUOBJDUMP}" -sass "${_object}" OUTPUT_FILE "${WORK}.sass"
                  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "cuobjdump -sass ${_object} failed (${_rc}): ${_err}")
  endif()
  execute_process(COMMAND "${SASS_TOOL}" "${WORK}.sass" ${SASS_BUDGETS} ${SASS_L2_HINTED}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE}: SASS check failed (${_rc}):\n${_out}${_err}")
  endif()
  message(STATUS "SASS:\n${_out}")
endif()
