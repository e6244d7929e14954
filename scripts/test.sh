#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# THE test command: installs what is missing (scripts/install_deps.sh, and scripts/python_env.sh: a
# venv with torch at a fixed path), configures build/ci (Release, Ninja when available, CUDA targets
# when nvcc exists, ISA checks and the HIP build of the PyTorch ops when the AMD toolchain is
# there), builds everything, runs every test except those labelled gpu, then installs the Python
# package and runs its tests. Exits non-zero on any failure.
#
#   bash scripts/test.sh                  full run
#   bash scripts/test.sh --configure-only install + configure only (used by scripts/demo.sh)
# Environment: FP8GEMM_BUILD_DIR (default <repo>/build/ci), FP8GEMM_JOBS (default nproc),
#              FP8GEMM_ENABLE_CUDA=ON|OFF (default: ON when nvcc is found), FP8GEMM_DEPS_DIR (install_deps.sh),
#              FP8GEMM_REQUIRE_TOOLCHAINS=ON|OFF (default OFF; CI: ON, a missing nvcc / AMD toolchain fails)
#              FP8GEMM_TORCH_HIP=ON|OFF (default ON: build and check the HIP libraries of the ops)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
CONFIGURE_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --configure-only) CONFIGURE_ONLY=1 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

BUILD_DIR="${FP8GEMM_BUILD_DIR:-$REPO/build/ci}"
JOBS="${FP8GEMM_JOBS:-$(nproc 2>/dev/null || echo 2)}"
step() { printf '\n==== %s\n' "$*" >&2; }
t0=$SECONDS

step "dependencies"
ROCM_PREFIX="$(bash "$REPO/scripts/install_deps.sh" | tail -n1)"
PY="$(bash "$REPO/scripts/python_env.sh" | tail -n1)"

step "configure $BUILD_DIR"
cfg=(-S "$REPO" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "-DFP8GEMM_ROCM_PREFIX=$ROCM_PREFIX")
# The generator of an existing build tree cannot change; pick one only for a fresh tree.
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  cfg+=(-G Ninja)
fi
if [[ -n "${FP8GEMM_ENABLE_CUDA:-}" ]]; then
  cfg+=("-DFP8GEMM_ENABLE_CUDA=$FP8GEMM_ENABLE_CUDA")
elif command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  cfg+=(-DFP8GEMM_ENABLE_CUDA=ON)
else
  cfg+=(-DFP8GEMM_ENABLE_CUDA=OFF)
fi
# FP8GEMM_REQUIRE_TOOLCHAINS=ON (.ci/run): configure fails when nvcc or the AMD toolchain is missing
cfg+=("-DFP8GEMM_REQUIRE_TOOLCHAINS=${FP8GEMM_REQUIRE_TOOLCHAINS:-OFF}")
# The PyTorch ops' HIP libraries (gfx950, gfx942), which tests/isa checks, where HIP can be linked
# (install_deps.sh provides what it takes; FP8GEMM_TORCH_HIP=OFF skips them). The test build
# builds no other backend: pip does, below.
cfg+=("-DFP8GEMM_TORCH_PYTHON=$PY" -DFP8GEMM_TORCH_BACKENDS= "-DFP8GEMM_TEST_TORCH_HIP=${FP8GEMM_TORCH_HIP:-ON}")
cmake "${cfg[@]}"
if ((CONFIGURE_ONLY)); then
  exit 0
fi

step "build (-j$JOBS)"
cmake --build "$BUILD_DIR" -j "$JOBS"

step "test (all but label gpu)"
ctest --test-dir "$BUILD_DIR" -LE gpu --output-on-failure --no-tests=error -j "$JOBS"

# The Python package as a user installs it (pip install ., scikit-build-core over this CMake; the
# CPU library: the emulator), then its tests against torch and FP64 (pytest fails when none ran).
step "python: pip install . and pytest tests/python"
CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "$PY" -m pip install -q --no-build-isolation --no-deps "$REPO"
(cd "$REPO" && "$PY" -m pytest -q -p no:cacheprovider tests/python)

step "all tests passed in $((SECONDS - t0)) s"
