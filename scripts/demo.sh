#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the demo (target fp8gemm_demo, examples/) in build/ci. Arguments go to the demo.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
BUILD_DIR="${FP8GEMM_BUILD_DIR:-$REPO/build/ci}"
JOBS="${FP8GEMM_JOBS:-$(nproc 2>/dev/null || echo 2)}"

bash "$REPO/scripts/test.sh" --configure-only

if ! cmake --build "$BUILD_DIR" --target help 2>/dev/null | grep -qE '(^|[[:space:]./])fp8gemm_demo(:|[[:space:]]|$)'; then
  echo "demo.sh: there is no target fp8gemm_demo in $BUILD_DIR (examples/ does not define it yet," \
       "or FP8GEMM_BUILD_EXAMPLES is OFF)" >&2
  exit 1
fi
# On a machine with an NVIDIA GPU the CUDA build of the demo runs there; otherwise the host build
# runs the gfx950 kernel on the CDNA host emulator. The demo prints which.
TARGET=fp8gemm_demo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU &&
   cmake --build "$BUILD_DIR" --target help 2>/dev/null | grep -q fp8gemm_demo_cuda; then
  TARGET=fp8gemm_demo_cuda
fi
cmake --build "$BUILD_DIR" --target "$TARGET" -j "$JOBS"

DEMO="$(find "$BUILD_DIR" -name "$TARGET" -type f -perm -u+x | head -n1)"
if [[ -z "$DEMO" ]]; then
  echo "demo.sh: fp8gemm_demo was built but no executable was found under $BUILD_DIR" >&2
  exit 1
fi
echo "==== $DEMO $*" >&2
exec "$DEMO" "$@"
