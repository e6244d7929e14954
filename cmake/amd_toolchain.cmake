# SPDX-License-Identifier: MIT
# The AMD side of the test toolchain, without a ROCm installation: clang++-22 plus the ROCm headers and
# amdgcn device bitcode unpacked from Debian sid by scripts/install_deps.sh (or a real ROCm prefix).
# Included OPTIONALLY by cmake/gpu_languages.cmake. The CXX compiler of the project stays g++; HIP
# sources are compiled through custom commands.
#
# Cache:    FP8GEMM_HIP_CLANG          clang++ used for HIP (default: clang++-22)
#           FP8GEMM_ROCM_PREFIX        the unpacked prefix (default $ENV{FP8GEMM_DEPS_DIR}/rocm, else
#                                      <source>/build/deps/rocm); a real ROCm root (/opt/rocm) works too
#           FP8GEMM_ROCM_DEVICE_LIB_PATH  directory holding ocml.bc (found under the prefix)
# Result:   FP8GEMM_HAVE_AMD_TOOLCHAIN ON/OFF
#           FP8GEMM_HIP_FLAGS          flags common to every HIP compile (list)
#           FP8GEMM_HIP_RUNTIME_LIBRARY  libamdhip64.so.6 (or .so) when a full HIP compile (host and
#                                      device code in one object) works and the runtime is there to
#                                      link against; empty otherwise
# Functions:
#   fp8gemm_add_hip_host_test(<name> SOURCES <src>... [LABELS <l>...] [LIBS <lib>...] [DEFINES <d>...]
#                                    [OPTIONS <flag>...])
#       gtest executable whose sources are compiled by clang in HIP *host-only* mode (hip/hip_fp8.h host
#       conversions usable as an oracle; no device code, no libamdhip64 needed), linked by the CXX
#       compiler with GTest::gtest_main. Registered with add_test + LABELS.
#   fp8gemm_hip_compile_asm(<out_var> SOURCE <src> ARCH <gfx942|gfx950> [DEFINES <d>...]
#                           [OPTIONS <flag>...] [NAME <stem>] [TARGET_VAR <var>])
#       device-only compile to assembly (<build>/asm/<stem>.<arch>.s), built as part of ALL by a custom
#       target (its name is returned in TARGET_VAR if given); returns the .s path in <out_var>.
#   fp8gemm_hip_compile_object(<out_var> SOURCE <src> ARCH <arch> OBJDIR <dir> [HOST_ONLY]
#                              [DEFINES <d>...] [OPTIONS <flag>...] [ASM_VAR <var>])
#       full compile (host code plus <arch>'s code object, -fPIC, -O3, hidden visibility) to
#       <dir>/<src name>.o for a shared library; the device assembly the object was assembled from
#       is kept (-save-temps=obj) and its path returned in ASM_VAR. HOST_ONLY: host code only, for a
#       source that launches no kernel of its own. Needs FP8GEMM_HIP_RUNTIME_LIBRARY.

set(FP8GEMM_HAVE_AMD_TOOLCHAIN OFF)
set(FP8GEMM_HIP_FLAGS "")

get_filename_component(_fp8gemm_amd_src_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(DEFINED ENV{FP8GEMM_DEPS_DIR} AND NOT "$ENV{FP8GEMM_DEPS_DIR}" STREQUAL "")
  set(_fp8gemm_rocm_default "$ENV{FP8GEMM_DEPS_DIR}/rocm")
else()
  set(_fp8gemm_rocm_default "${_fp8gemm_amd_src_root}/build/deps/rocm")
endif()
set(FP8GEMM_ROCM_PREFIX "${_fp8gemm_rocm_default}" CACHE PATH
    "Prefix holding the ROCm headers and amdgcn bitcode (scripts/install_deps.sh unpacks them there)")
find_program(FP8GEMM_HIP_CLANG NAMES clang++-22 HINTS /usr/lib/llvm-22/bin
             DOC "clang++ (>= 22) used for HIP compiles")

set(_fp8gemm_amd_missing "")
if(NOT FP8GEMM_HIP_CLANG)
  list(APPEND _fp8gemm_amd_missing "clang++-22 (apt-get install clang-22 lld-22)")
endif()

# The HIP root is <prefix>/usr for the unpacked Debian packages, <prefix> for a real ROCm install.
set(_fp8gemm_hip_root "")
foreach(_root "${FP8GEMM_ROCM_PREFIX}/usr" "${FP8GEMM_ROCM_PREFIX}")
  if(EXISTS "${_root}/include/hip/hip_runtime.h" AND EXISTS "${_root}/include/hip/hip_fp8.h")
    set(_fp8gemm_hip_root "${_root}")
    break()
  endif()
endforeach()
if(NOT _fp8gemm_hip_root)
  list(APPEND _fp8gemm_amd_missing
       "hip/hip_runtime.h + hip/hip_fp8.h under ${FP8GEMM_ROCM_PREFIX} (run scripts/install_deps.sh)")
endif()

if(NOT FP8GEMM_ROCM_DEVICE_LIB_PATH OR NOT EXISTS "${FP8GEMM_ROCM_DEVICE_LIB_PATH}/ocml.bc")
  file(GLOB _fp8gemm_ocml LIST_DIRECTORIES false
       "${FP8GEMM_ROCM_PREFIX}/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode/ocml.bc"
       "${FP8GEMM_ROCM_PREFIX}/amdgcn/bitcode/ocml.bc"
       "${FP8GEMM_ROCM_PREFIX}/lib/llvm/lib/clang/*/lib/amdgcn/bitcode/ocml.bc")
  list(SORT _fp8gemm_ocml)
  list(REVERSE _fp8gemm_ocml) # newest llvm-N first
  unset(FP8GEMM_ROCM_DEVICE_LIB_PATH CACHE)
  if(_fp8gemm_ocml)
    list(GET _fp8gemm_ocml 0 _fp8gemm_ocml)
    get_filename_component(_fp8gemm_bc_dir "${_fp8gemm_ocml}" DIRECTORY)
    set(FP8GEMM_ROCM_DEVICE_LIB_PATH "${_fp8gemm_bc_dir}" CACHE PATH "amdgcn device bitcode directory" FORCE)
  endif()
endif()
if(NOT FP8GEMM_ROCM_DEVICE_LIB_PATH)
  list(APPEND _fp8gemm_amd_missing "amdgcn device bitcode (ocml.bc) under ${FP8GEMM_ROCM_PREFIX}")
endif()

if(NOT _fp8gemm_amd_missing)
  set(FP8GEMM_HIP_FLAGS
      -x hip -std=c++17
      "--hip-path=${_fp8gemm_hip_root}"
      "--rocm-device-lib-path=${FP8GEMM_ROCM_DEVICE_LIB_PATH}"
      -isystem "${_fp8gemm_hip_root}/include"
      # clang 22 no longer predefines it; the ROCm 6.4 headers still read it (warpSize).
      -D__AMDGCN_WAVEFRONT_SIZE=64
      -D__HIP_PLATFORM_AMD__)

  # Probe once (cached per input set): a host-only compile using hip_fp8.h and a gfx942 device-only -S.
  set(_fp8gemm_probe_sig "${FP8GEMM_HIP_CLANG};${FP8GEMM_HIP_FLAGS}")
  if(NOT "${FP8GEMM_AMD_TOOLCHAIN_PROBE_SIG}" STREQUAL "${_fp8gemm_probe_sig}")
    set(_dir "${CMAKE_BINARY_DIR}/CMakeFiles/fp8gemm_amd_probe")
    file(MAKE_DIRECTORY "${_dir}")
    file(WRITE "${_dir}/probe.hip.cpp" [=[
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>
__global__ void probe_kernel(float* p) { p[threadIdx.x] = 1.0f; }
int probe_host() { return int(__hip_cvt_float_to_fp8(1.5f, __HIP_SATFINITE, __HIP_E4M3)); }
]=])
    execute_process(
      COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} --offload-host-only -c probe.hip.cpp -o probe.o
      WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _rc_host OUTPUT_VARIABLE _out_host ERROR_VARIABLE _out_host)
    execute_process(
      COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} --offload-arch=gfx942 --offload-device-only -S -O1
              probe.hip.cpp -o probe.s
      WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _rc_dev OUTPUT_VARIABLE _out_dev ERROR_VARIABLE _out_dev)
    if(_rc_host EQUAL 0 AND _rc_dev EQUAL 0)
      set(FP8GEMM_AMD_TOOLCHAIN_PROBE_OK ON CACHE INTERNAL "")
    else()
      set(FP8GEMM_AMD_TOOLCHAIN_PROBE_OK OFF CACHE INTERNAL "")
      message(WARNING "fp8gemm: the AMD toolchain probe failed:\n${_out_host}\n${_out_dev}")
    endif()
    set(FP8GEMM_AMD_TOOLCHAIN_PROBE_SIG "${_fp8gemm_probe_sig}" CACHE INTERNAL "")
  endif()
  if(FP8GEMM_AMD_TOOLCHAIN_PROBE_OK)
    set(FP8GEMM_HAVE_AMD_TOOLCHAIN ON)
    # Linking HIP code: the runtime library, and a full compile (clang-offload-bundler, from
    # clang-tools-22, joins the host and device objects). Searched at every configure (a prefix
    # or toolchain installed later is found), the probe cached per (flags, library).
    find_library(_fp8gemm_hip_runtime NAMES libamdhip64.so.6 amdhip64
                 HINTS "${_fp8gemm_hip_root}/lib/x86_64-linux-gnu" "${_fp8gemm_hip_root}/lib"
                 NO_DEFAULT_PATH NO_CACHE)
    set(_fp8gemm_link_sig "${_fp8gemm_probe_sig};${_fp8gemm_hip_runtime}")
    if(_fp8gemm_hip_runtime AND NOT "${FP8GEMM_HIP_LINK_PROBE_SIG}" STREQUAL "${_fp8gemm_link_sig}")
      set(_dir "${CMAKE_BINARY_DIR}/CMakeFiles/fp8gemm_amd_probe")
      execute_process(
        COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} --offload-arch=gfx942 -fPIC -O1 -c
                probe.hip.cpp -o probe_full.o
        WORKING_DIRECTORY "${_dir}" RESULT_VARIABLE _rc_full OUTPUT_VARIABLE _out_full
        ERROR_VARIABLE _out_full)
      if(_rc_full EQUAL 0)
        set(FP8GEMM_HIP_LINK_PROBE_OK ON CACHE INTERNAL "")
      else()
        set(FP8GEMM_HIP_LINK_PROBE_OK OFF CACHE INTERNAL "")
        message(WARNING "fp8gemm: a full HIP compile failed (clang-tools-22 missing?):\n${_out_full}")
      endif()
      set(FP8GEMM_HIP_LINK_PROBE_SIG "${_fp8gemm_link_sig}" CACHE INTERNAL "")
    endif()
    unset(FP8GEMM_HIP_RUNTIME_LIBRARY CACHE)  # a normal variable (older builds cached one)
    set(FP8GEMM_HIP_RUNTIME_LIBRARY "")
    if(_fp8gemm_hip_runtime AND FP8GEMM_HIP_LINK_PROBE_OK)
      set(FP8GEMM_HIP_RUNTIME_LIBRARY "${_fp8gemm_hip_runtime}")
    endif()
  else()
    list(APPEND _fp8gemm_amd_missing "a working HIP compile (probe failed, see the warning above)")
    set(FP8GEMM_HIP_FLAGS "")
  endif()
endif()

if(FP8GEMM_HAVE_AMD_TOOLCHAIN)
  message(STATUS "fp8gemm: AMD toolchain: ${FP8GEMM_HIP_CLANG}, HIP ${_fp8gemm_hip_root}, "
                 "bitcode ${FP8GEMM_ROCM_DEVICE_LIB_PATH}")
else()
  list(JOIN _fp8gemm_amd_missing "; " _fp8gemm_amd_missing_str)
  message(STATUS "fp8gemm: AMD toolchain OFF, missing: ${_fp8gemm_amd_missing_str}")
endif()

# Include flags (-I / -isystem) and definitions carried by fp8gemm_test_common and fp8gemm, plus GTest's
# include dirs, as generator expressions usable in a custom command (with COMMAND_EXPAND_LISTS).
function(_fp8gemm_hip_usage_flags out_var)
  set(_flags "")
  foreach(_tgt fp8gemm_test_common fp8gemm GTest::gtest)
    if(TARGET ${_tgt})
      set(_inc "$<TARGET_PROPERTY:${_tgt},INTERFACE_INCLUDE_DIRECTORIES>")
      set(_inc "$<FILTER:${_inc},EXCLUDE,^/usr(/local)?/include/?$>")
      list(APPEND _flags "$<$<BOOL:${_inc}>:-I$<JOIN:${_inc},$<SEMICOLON>-I>>")
      set(_def "$<TARGET_PROPERTY:${_tgt},INTERFACE_COMPILE_DEFINITIONS>")
      list(APPEND _flags "$<$<BOOL:${_def}>:-D$<JOIN:${_def},$<SEMICOLON>-D>>")
    endif()
  endforeach()
  set(${out_var} "${_flags}" PARENT_SCOPE)
endfunction()

function(_fp8gemm_require_amd fn)
  if(NOT FP8GEMM_HAVE_AMD_TOOLCHAIN)
    message(FATAL_ERROR "${fn}: the AMD toolchain is not available; guard the call with "
                        "if(FP8GEMM_HAVE_AMD_TOOLCHAIN)")
  endif()
endfunction()

function(fp8gemm_add_hip_host_test name)
  _fp8gemm_require_amd(fp8gemm_add_hip_host_test)
  cmake_parse_arguments(ARG "" "" "SOURCES;LABELS;LIBS;DEFINES;OPTIONS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "fp8gemm_add_hip_host_test(${name}): no SOURCES")
  endif()
  _fp8gemm_hip_usage_flags(_usage)
  set(_defs "")
  foreach(_d IN LISTS ARG_DEFINES)
    list(APPEND _defs "-D${_d}")
  endforeach()
  set(_objs "")
  set(_objdir "${CMAKE_CURRENT_BINARY_DIR}/${name}.hip-host")
  foreach(_src IN LISTS ARG_SOURCES)
    get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH _rel "${CMAKE_CURRENT_SOURCE_DIR}" "${_abs}")
    string(REGEX REPLACE "[^A-Za-z0-9_.-]" "_" _rel "${_rel}")
    set(_obj "${_objdir}/${_rel}.o")
    add_custom_command(
      OUTPUT "${_obj}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${_objdir}"
      COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} --offload-host-only
              -O2 -g ${FP8GEMM_WARNINGS} ${_usage} ${_defs} ${ARG_OPTIONS}
              -MD -MF "${_obj}.d" -c "${_abs}" -o "${_obj}"
      DEPENDS "${_abs}"
      DEPFILE "${_obj}.d"
      COMMENT "HIP host-only ${_rel} (${name})"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND _objs "${_obj}")
  endforeach()
  set_source_files_properties(${_objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_executable(${name} ${_objs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(${name} PRIVATE fp8gemm_test_common GTest::gtest_main Threads::Threads ${ARG_LIBS})
  add_test(NAME ${name} COMMAND ${name})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

function(fp8gemm_hip_compile_asm out_var)
  _fp8gemm_require_amd(fp8gemm_hip_compile_asm)
  cmake_parse_arguments(ARG "" "SOURCE;ARCH;NAME;TARGET_VAR" "DEFINES;OPTIONS" ${ARGN})
  if(NOT ARG_SOURCE OR NOT ARG_ARCH)
    message(FATAL_ERROR "fp8gemm_hip_compile_asm: SOURCE and ARCH are required")
  endif()
  get_filename_component(_abs "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_NAME)
    set(_stem "${ARG_NAME}")
  else()
    get_filename_component(_stem "${_abs}" NAME_WE)
  endif()
  _fp8gemm_hip_usage_flags(_usage)
  set(_defs "")
  foreach(_d IN LISTS ARG_DEFINES)
    list(APPEND _defs "-D${_d}")
  endforeach()
  set(_out "${CMAKE_CURRENT_BINARY_DIR}/asm/${_stem}.${ARG_ARCH}.s")
  add_custom_command(
    OUTPUT "${_out}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/asm"
    COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} "--offload-arch=${ARG_ARCH}" --offload-device-only
            -S -O3 ${_usage} ${_defs} ${ARG_OPTIONS}
            # -MD/-MF are ignored by the driver for an offload -S compile; ask cc1 directly.
            -Xclang -dependency-file -Xclang "${_out}.d" -Xclang -MT -Xclang "${_out}"
            "${_abs}" -o "${_out}"
    DEPENDS "${_abs}"
    DEPFILE "${_out}.d"
    COMMENT "HIP device asm ${_stem} for ${ARG_ARCH}"
    COMMAND_EXPAND_LISTS VERBATIM)
  string(MAKE_C_IDENTIFIER "fp8gemm_asm_${_stem}_${ARG_ARCH}" _tgt)
  add_custom_target(${_tgt} ALL DEPENDS "${_out}")
  set(${out_var} "${_out}" PARENT_SCOPE)
  if(ARG_TARGET_VAR)
    set(${ARG_TARGET_VAR} "${_tgt}" PARENT_SCOPE)
  endif()
endfunction()

function(fp8gemm_hip_compile_object out_var)
  _fp8gemm_require_amd(fp8gemm_hip_compile_object)
  if(NOT FP8GEMM_HIP_RUNTIME_LIBRARY)
    message(FATAL_ERROR "fp8gemm_hip_compile_object: no HIP runtime library to link against "
                        "(libamdhip64.so.6 under ${FP8GEMM_ROCM_PREFIX}; scripts/install_deps.sh)")
  endif()
  cmake_parse_arguments(ARG "HOST_ONLY" "SOURCE;ARCH;OBJDIR;ASM_VAR" "DEFINES;OPTIONS" ${ARGN})
  get_filename_component(_abs "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_name "${_abs}" NAME)
  get_filename_component(_stem "${_abs}" NAME_WE)
  set(_defs "")
  foreach(_d IN LISTS ARG_DEFINES)
    list(APPEND _defs "-D${_d}")
  endforeach()
  set(_obj "${ARG_OBJDIR}/${_name}.o")
  if(ARG_HOST_ONLY)
    set(_mode --offload-host-only)
    set(_asm "")
    set(_what "host code only")
  else()
    set(_mode -save-temps=obj)
    set(_what "host and device code")
    # -save-temps=obj names the device pass's files after the source: <stem>-hip-<triple>-<arch>.s
    set(_asm "${ARG_OBJDIR}/${_stem}-hip-amdgcn-amd-amdhsa-${ARG_ARCH}.s")
  endif()
  add_custom_command(
    OUTPUT "${_obj}" ${_asm}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ARG_OBJDIR}"
    COMMAND "${FP8GEMM_HIP_CLANG}" ${FP8GEMM_HIP_FLAGS} "--offload-arch=${ARG_ARCH}" -fPIC -O3
            -fvisibility=hidden -fvisibility-inlines-hidden ${_mode}
            "-I$<JOIN:$<TARGET_PROPERTY:fp8gemm,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
            ${_defs} ${ARG_OPTIONS} -MD -MF "${_obj}.d" -c "${_abs}" -o "${_obj}"
    DEPENDS "${_abs}"
    DEPFILE "${_obj}.d"
    WORKING_DIRECTORY "${ARG_OBJDIR}"
    COMMENT "HIP ${_name} for ${ARG_ARCH} (${_what})"
    COMMAND_EXPAND_LISTS VERBATIM)
  set(${out_var} "${_obj}" PARENT_SCOPE)
  if(ARG_ASM_VAR)
    set(${ARG_ASM_VAR} "${_asm}" PARENT_SCOPE)
  endif()
endfunction()

# fp8gemm_hip_compile_cdna(NAME <stem> SOURCE <file>): SOURCE's device code for gfx942 and gfx950
# (assembly), the library's warnings as errors: the build fails where a header does not compile
# for a CDNA target.
function(fp8gemm_hip_compile_cdna)
  cmake_parse_arguments(ARG "" "NAME;SOURCE" "" ${ARGN})
  foreach(_arch gfx942 gfx950)
    fp8gemm_hip_compile_asm(_asm SOURCE ${ARG_SOURCE} ARCH ${_arch} NAME ${ARG_NAME}
                            OPTIONS ${FP8GEMM_WARNINGS})
  endforeach()
endfunction()
