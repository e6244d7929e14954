#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fills .carry/ (git-ignored) with what scripts/h200_run.sh runs on the H200: the GPU test
# binaries, the CUDA examples and the benchmark, built here by scripts/test.sh with nvcc, Debian's
# Google Benchmark shared library, and the commit they were built from. Then call the device tool
# with carry [".carry"] and `bash scripts/h200_run.sh all` (or tests / bench).
# FP8GEMM_AB_BASE_BENCH=<path>: also carry that build's benchmark as .carry/fp8gemm_bench_base (for
# `h200_run.sh ab`). The binaries travel stripped of host symbols and packed in .carry/carry.tgz
# (the device fatbins are kept; unpacked by h200_run.sh): the working tree and the carried paths
# together may not exceed 64 MiB.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FP8GEMM_BUILD_DIR:-$REPO/build/ci}"
cd "$REPO"
rm -rf .carry
mkdir -p .carry
# FP8GEMM_CARRY=torch: only the PyTorch ops' libraries (h200_run.sh python), not the binaries
# FP8GEMM_CARRY_ONLY: what to carry, by name (e.g. "fp8gemm_gemm_wgmma_gpu_test torch
# fp8gemm_bench"; default all): all of them with the working tree may pass the 64 MiB
if [[ ${FP8GEMM_CARRY:-all} != torch ]]; then
  for f in "$BUILD"/tests/gpu/fp8gemm_*_gpu_test "$BUILD"/examples/fp8gemm_demo_cuda \
    "$BUILD"/examples/fp8gemm_example_block_level "$BUILD"/bench/fp8gemm_bench \
    "$BUILD"/bench/fp8gemm_tune "$BUILD"/bench/fp8gemm_grouped_bench; do
    [[ -x $f ]] || continue
    [[ -z ${FP8GEMM_CARRY_ONLY:-} || " $FP8GEMM_CARRY_ONLY " == *" $(basename "$f") "* ]] || continue
    cp "$f" .carry/
  done
fi
if [[ -n "${FP8GEMM_AB_BASE_BENCH:-}" ]]; then
  cp "$FP8GEMM_AB_BASE_BENCH" .carry/fp8gemm_bench_base
fi
# the PyTorch ops' libraries (python/CMakeLists.txt), if built: FP8GEMM_TORCH_LIB_DIRS lists the
# folders holding _C_*.so (default build/torch-cuda's python/fp8gemm); with FP8GEMM_CARRY_ONLY,
# only if it names "torch"
torch_dirs=${FP8GEMM_TORCH_LIB_DIRS:-build/torch-cuda/python/fp8gemm}
[[ -n ${FP8GEMM_CARRY_ONLY:-} && " $FP8GEMM_CARRY_ONLY " != *" torch "* ]] && torch_dirs=""
for d in $torch_dirs; do
  for so in "$d"/_C_*.so; do
    [[ -f $so ]] || continue
    mkdir -p .carry/torch
    cp "$so" .carry/torch/ && strip --strip-unneeded ".carry/torch/$(basename "$so")"
  done
done
# FP8GEMM_DEEPGEMM_DIR: a DeepGEMM checkout (the blockwise issue's commit, with its third-party
# cutlass and fmt submodules checked out; docs/benchmark.md), a baseline for `h200_run.sh
# blockwise`, packed without .git; built there, never committed here
if [[ -n "${FP8GEMM_DEEPGEMM_DIR:-}" ]]; then
  [[ -f "$FP8GEMM_DEEPGEMM_DIR/setup.py" && -d "$FP8GEMM_DEEPGEMM_DIR/third-party/cutlass/include" ]] ||
    { echo "h200_carry.sh: $FP8GEMM_DEEPGEMM_DIR is not a DeepGEMM checkout with its submodules" >&2; exit 2; }
  tar czf .carry/deepgemm.tgz --exclude=.git -C "$FP8GEMM_DEEPGEMM_DIR" .
fi
lib=$(ldconfig -p | awk '/libbenchmark\.so\.1/ {print $NF; exit}')
[[ -n "$lib" ]] && cp -L "$lib" .carry/
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- include tests bench examples python || commit="$commit+uncommitted"
echo "$commit" > .carry/COMMIT
# one archive for the torch libraries (the device tool carries 64 MiB with the working tree)
[[ -d .carry/torch ]] && (cd .carry && tar czf torch.tgz --remove-files torch)
if ls .carry/fp8gemm_* >/dev/null 2>&1; then
  (cd .carry && strip --strip-unneeded fp8gemm_* && tar czf carry.tgz --remove-files $(ls fp8gemm_* libbenchmark* 2>/dev/null))
fi
du -sh .carry
# the device tool carries at most 64 MiB: the working tree (tracked and untracked files git does
# not ignore) and .carry together; say so here rather than have the call refused there
tree=$(git ls-files -co --exclude-standard -z | xargs -0 du -cb 2>/dev/null | awk 'END {print $1}')
carry=$(du -sb .carry | cut -f1)
limit=$((64 * 1024 * 1024))
if ((tree + carry > limit)); then
  echo "h200_carry.sh: the working tree ($((tree / 1048576)) MiB) and .carry ($((carry / 1048576))" \
    "MiB) pass the device tool's 64 MiB: carry less (FP8GEMM_CARRY_ONLY)" >&2
  exit 1
fi
