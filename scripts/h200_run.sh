#!/usr/bin/env bash
# Runs on the H200 (device tool): the GPU test suite, a compute-sanitizer subset, and the
# benchmark, from binaries built here with nvcc and carried in .carry/. Everything lands in $OUT.
#   usage there: bash scripts/h200_run.sh [tests|bench|all]
set -uo pipefail
what=${1:-all}
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: $(cat .carry/COMMIT 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
} > "$out/env.txt" 2>&1
cat "$out/env.txt"
rc=0
if [[ $what == tests || $what == all ]]; then
  : > "$out/tests.log"
  for t in .carry/fp8gemm_*_gpu_test; do
    name=$(basename "$t")
    echo "==== $name" >> "$out/tests.log"
    "$t" --gtest_output=json:"$out/$name.json" >> "$out/tests.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "$name exit $r: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests.log" | tail -2 | tr '\n' ' ')"
  done
  for ex in .carry/fp8gemm_demo_cuda .carry/fp8gemm_example_block_level; do
    [[ -x $ex ]] || continue
    echo "==== $(basename "$ex")" >> "$out/tests.log"
    "$ex" >> "$out/tests.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "$(basename "$ex") exit $r: $(tail -1 "$out/tests.log")"
  done
  # compute-sanitizer on a subset (small shapes: every config's NaN case, the ragged-shape list
  # of two configs): memcheck and racecheck must report no errors.
  : > "$out/sanitizer.log"
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 .carry/fp8gemm_gemm_granularity_gpu_test \
      --gtest_filter='*NanInAPropagatesToItsRowOnly*' >> "$out/sanitizer.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "compute-sanitizer $tool exit $r: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)"
  done
fi
if [[ $what == bench || $what == all ]]; then
  .carry/fp8gemm_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_min_time=0.1 \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json > "$out/bench.log" 2>&1
  r=$?; rc=$((rc | r))
  grep -E "median|ERROR|status" "$out/bench.log" | awk '{print $1, $2, $3, $(NF-1)}' | head -40
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$out/env.txt" 2>&1
exit $rc
