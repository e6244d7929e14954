# SPDX-License-Identifier: MIT
# One compile-fail test: compiles SOURCE (-fsyntax-only, C++17, fp8gemm's headers) and passes when
# the compile fails and its diagnostics contain the sentence of SOURCE's "// expect-error:" lines
# (consecutive lines joined by one space). A SOURCE without such lines must compile.
# With RULES_DOC (the rules' one place, next to TilePolicy), that file must also quote the sentence
# and name the case as [<case>], so the documented rules cannot drift from the static_asserts.
#   cmake -DCXX=<c++ compiler> -DINCLUDE_DIR=<fp8gemm>/include -DSOURCE=<case.cpp>
#         [-DRULES_DOC=<fp8gemm>/include/fp8gemm/policy/tile_policy.hpp] -P this file
foreach(_var CXX INCLUDE_DIR SOURCE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "expect_compile_error.cmake: -D${_var}=... is required")
  endif()
endforeach()

file(STRINGS "${SOURCE}" _lines REGEX "^// expect-error: ")
set(_expected "")
foreach(_line IN LISTS _lines)
  string(REGEX REPLACE "^// expect-error: " "" _line "${_line}")
  if(_expected STREQUAL "")
    set(_expected "${_line}")
  else()
    string(APPEND _expected " ${_line}")
  endif()
endforeach()

execute_process(COMMAND "${CXX}" -std=c++17 -fsyntax-only "-I${INCLUDE_DIR}" "${SOURCE}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)

if(_expected STREQUAL "")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} should compile but does not:\n${_out}")
  endif()
  message(STATUS "compiles, as it should")
  return()
endif()
if(_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but should fail with:\n  ${_expected}")
endif()
string(FIND "${_out}" "${_expected}" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "${SOURCE} failed to compile, but without the expected sentence\n"
                      "  ${_expected}\ndiagnostics:\n${_out}")
endif()
message(STATUS "fails with: ${_expected}")

if(DEFINED RULES_DOC)
  get_filename_component(_case "${SOURCE}" NAME_WE)
  file(STRINGS "${RULES_DOC}" _doc REGEX "^[ ]*///")  # the doc comments only, not the code
  list(JOIN _doc " " _doc)
  string(REPLACE "///" " " _doc "${_doc}")
  string(REGEX REPLACE "[ ]+" " " _doc "${_doc}")
  string(FIND "${_doc}" "\"${_expected}\"" _quoted)
  string(FIND "${_doc}" "[${_case}]" _named)
  if(_quoted EQUAL -1 OR _named EQUAL -1)
    message(FATAL_ERROR "${RULES_DOC} must quote the sentence (in double quotes) and name the case "
                        "[${_case}]:\n  ${_expected}")
  endif()
endif()
