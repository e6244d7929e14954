#!/usr/bin/env bash
# Runs on the H200 (device tool): the GPU test suite, a compute-sanitizer subset, and the
# benchmark, from binaries built here with nvcc and carried in .carry/. Everything lands in $OUT.
#   usage there: bash scripts/h200_run.sh
#     [tests|bench|all|profile|power|ab|tune|grouped|python|blockwise]...
# FP8GEMM_DEADLINE: seconds after the start by which the python and blockwise modes' steps end
# (each step's timeout shrinks to fit; the device call's limit then does not cut the whole call).
# Environment (for short runs): FP8GEMM_TEST_BINARIES (glob under .carry/, default
# fp8gemm_*_gpu_test), FP8GEMM_TEST_FILTER (a --gtest_filter for each), FP8GEMM_TEST_TIMEOUT
# (seconds per binary, default 200), FP8GEMM_SANITIZE=0 (skip compute-sanitizer),
# FP8GEMM_BENCH_FILTER (a --benchmark_filter regex, default all),
# FP8GEMM_BENCH_SECOND (a second regex: a second pass, bench_1.json/.log), FP8GEMM_BENCH_TIMEOUT
# (seconds per pass, default 400),
# FP8GEMM_BENCH_MIN_TIME (seconds of measured GPU time per repetition, default 0.02: with 10
# launches per event pair that is about 0.2 s of wall time, as 0.1 s was with one launch).
# profile: FP8GEMM_NCU_BENCHES (space-separated benchmark names): Nsight Compute (clocks left
# alone) on one GEMM launch of each, after 30 of them, into ncu.txt; FP8GEMM_NCU_STALLS=1 adds
# the per-reason warp stall ratios (metrics smsp__average_warps_issue_stalled_*);
# FP8GEMM_NCU_DEEPGEMM (shapes MxNxK): the same on DeepGEMM's blockwise kernel (.carry/deepgemm.tgz).
# power: FP8GEMM_POWER_BENCHES (space-separated benchmark names, required) each run alone with
# --benchmark_min_time=FP8GEMM_POWER_MIN_TIME (default 0.5; the benchmark's time is elapsed / 10
# launches, so at 8192^3 that is ~7 s of GPU load, ~13 s of wall time with the setup), with
# power, SM clock and the clock-event reasons sampled every 100 ms (power_smi.csv,
# power_phases.txt, power_bench.log; bench/power_phases.py summarizes them per benchmark): the
# sustained, power-capped regime.
set -uo pipefail
# Several modes in one call (one machine start; e.g. `h200_run.sh tests bench grouped`): each
# into its own folder, in order, with FP8GEMM_DEADLINE (if set) counted from this start, and
# after each mode everything packed into $OUT/modes.tgz (one file: a call cut short keeps the
# modes that finished).
if (($# > 1)); then
  out=${OUT:-/tmp/out}
  work=$(mktemp -d)
  rc=0
  for m in "$@"; do
    left=${FP8GEMM_DEADLINE:+$((FP8GEMM_DEADLINE - SECONDS))}
    if [[ -n $left ]] && ((left < 10)); then
      echo "$m: not run, FP8GEMM_DEADLINE reached"
      continue
    fi
    echo "==== mode $m (at ${SECONDS} s)"
    mkdir -p "$work/$m"
    OUT=$work/$m FP8GEMM_DEADLINE=$left bash "${BASH_SOURCE[0]}" "$m"
    rc=$((rc | $?))
    mkdir -p "$out" && tar czf "$out/modes.tgz" -C "$work" .
  done
  exit $rc
fi
what=${1:-all}
case $what in
  tests | bench | all | profile | power | ab | tune | grouped | python | blockwise) ;;
  *)
    echo "h200_run.sh: unknown mode '$what'" >&2
    exit 2
    ;;
esac
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# scripts/h200_carry.sh packs the binaries; unpack them once
[[ -f .carry/carry.tgz ]] && tar xzf .carry/carry.tgz -C .carry && rm -f .carry/carry.tgz
[[ -f .carry/torch.tgz ]] && tar xzf .carry/torch.tgz -C .carry && rm -f .carry/torch.tgz
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: $(cat .carry/COMMIT 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv
} > "$out/env.txt" 2>&1
cat "$out/env.txt"
rc=0
# within SECONDS: prints SECONDS, or fewer when FP8GEMM_DEADLINE (seconds after this script's start
# by which every step must end, to stay inside the device call's limit) is closer (at least 1).
within() {
  local s=$1
  if [[ -n ${FP8GEMM_DEADLINE:-} ]] && (( FP8GEMM_DEADLINE - SECONDS < s )); then
    s=$(( FP8GEMM_DEADLINE - SECONDS > 1 ? FP8GEMM_DEADLINE - SECONDS : 1 ))
  fi
  echo "$s"
}
# build_deepgemm: DeepGEMM from .carry/deepgemm.tgz (h200_carry.sh, FP8GEMM_DEEPGEMM_DIR), built
# here with the system GCC (the image's CXX, /opt/gcc, links a newer libstdc++ that crashes inside
# the torch process), onto PYTHONPATH; returns the build's status (deepgemm_build.log).
build_deepgemm() {
  local dg=/tmp/deepgemm r lib
  rm -rf "$dg" && mkdir -p "$dg" && tar xzf .carry/deepgemm.tgz -C "$dg"
  (cd "$dg" && CC=/usr/bin/gcc CXX=/usr/bin/g++ DG_USE_LOCAL_VERSION=0 timeout "$(within 240)" \
    python3 setup.py build) > "$out/deepgemm_build.log" 2>&1
  r=$?
  echo "DeepGEMM build exit $r: $(tail -1 "$out/deepgemm_build.log")"
  lib=$(ls -d "$dg"/build/lib.* 2>/dev/null | head -1)
  [[ -n $lib ]] && export PYTHONPATH=$lib${PYTHONPATH:+:$PYTHONPATH}
  ldd "$lib"/deep_gemm/_C*.so 2>/dev/null | grep -E 'stdc' | tee "$out/deepgemm_ldd.txt"
  return $r
}
# smi_start FILE: SM clock, power (and the time) sampled every 500 ms into FILE until smi_stop.
# smi_stop FILE WHAT: stops it and prints the SM clock's min / median / max during WHAT.
smi_start() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader,nounits -lms 500 \
    > "$1" 2>/dev/null &
  sampler=$!
}
smi_stop() {
  kill "$sampler"
  awk -F', ' '{print $2}' "$1" | sort -n | awk -v what="$2" '{a[NR]=$1} END {print "SM clock MHz during the " what ": min", a[1], "median", a[int((NR+1)/2)], "max", a[NR], "(" NR " samples)"}'
}
if [[ $what == tests || $what == all ]]; then
  : > "$out/tests.log"
  # One gtest JSON per binary, packed into one archive: $OUT brings back at most 8 files.
  json=$(mktemp -d)
  for t in .carry/${FP8GEMM_TEST_BINARIES:-fp8gemm_*_gpu_test}; do
    name=$(basename "$t")
    echo "==== $name" >> "$out/tests.log"
    # a hang (a ring or barrier bug) ends as exit 124 instead of eating the device call
    timeout "${FP8GEMM_TEST_TIMEOUT:-200}" "$t" --gtest_output=json:"$json/$name.json" \
      ${FP8GEMM_TEST_FILTER:+--gtest_filter="$FP8GEMM_TEST_FILTER"} > "$json/$name.log" 2>&1
    r=$?; rc=$((rc | r))
    cat "$json/$name.log" >> "$out/tests.log"
    echo "$name exit $r: $(grep -E '^\[  (PASSED|FAILED)  \]' "$json/$name.log" | tr '\n' ' ')"
  done
  tar -C "$json" -czf "$out/gtest_json.tar.gz" --exclude='*.log' .
  for ex in .carry/fp8gemm_demo_cuda .carry/fp8gemm_example_block_level; do
    [[ -x $ex ]] || continue
    echo "==== $(basename "$ex")" >> "$out/tests.log"
    "$ex" >> "$out/tests.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "$(basename "$ex") exit $r: $(tail -1 "$out/tests.log")"
  done
  # SASS of the TMA + WGMMA kernels: QGMMA, no HMMA
  if [[ -x .carry/fp8gemm_gemm_wgmma_gpu_test ]]; then
    bash scripts/check_sass.sh .carry/fp8gemm_gemm_wgmma_gpu_test > "$out/sass_check.txt" 2>&1
    r=$?; rc=$((rc | r))
    echo "sass check exit $r: $(grep -c QGMMA "$out/sass_check.txt") kernels listed"
  else
    echo "sass check: fp8gemm_gemm_wgmma_gpu_test not carried, skipped"
  fi
  # compute-sanitizer on a subset (small shapes: every config's NaN case; the split-K test for the
  # workspace partials and their reduction): memcheck and racecheck must report no errors.
  : > "$out/sanitizer.log"
  [[ ${FP8GEMM_SANITIZE:-1} == 0 ]] && set -- || set -- memcheck racecheck
  for tool in "$@"; do
    for sub in "fp8gemm_gemm_granularity_gpu_test *NanInAPropagatesToItsRowOnly*" \
               "fp8gemm_gemm_api_gpu_test GemmSplitK.*" \
               "fp8gemm_gemm_wgmma_gpu_test WgmmaGemm/*.NanInAPropagatesToItsRowOnly"; do
      set -f; set -- $sub; set +f  # the filter is a pattern, not a file glob
      if [[ ! -x .carry/$1 ]]; then echo "compute-sanitizer $tool $1: not carried, skipped"; continue; fi
      echo "==== $tool $1 $2" >> "$out/sanitizer.log"
      timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ".carry/$1" --gtest_filter="$2" >> "$out/sanitizer.log" 2>&1
      r=$?; rc=$((rc | r))
      echo "compute-sanitizer $tool $1 exit $r: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)"
    done
  done
fi
if [[ $what == bench || $what == all ]]; then
  # SM clock sampled twice a second while the benchmark runs (reported with every figure; the
  # samples include the host's operand setup between benchmarks, when the GPU idles)
  (while :; do nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits; sleep 0.5; done) \
    > "$out/bench_clocks.txt" 2>&1 &
  sampler=$!
  pass=0
  for filter in "${FP8GEMM_BENCH_FILTER:-.}" ${FP8GEMM_BENCH_SECOND:+"$FP8GEMM_BENCH_SECOND"}; do
    suffix=$([[ $pass == 0 ]] && echo "" || echo "_$pass")
    timeout "${FP8GEMM_BENCH_TIMEOUT:-400}" .carry/fp8gemm_bench --benchmark_repetitions=5 \
      --benchmark_enable_random_interleaving=true --benchmark_filter="$filter" \
      --benchmark_report_aggregates_only=true --benchmark_min_time="${FP8GEMM_BENCH_MIN_TIME:-0.02}" \
      --benchmark_out="$out/bench$suffix.json" --benchmark_out_format=json \
      > "$out/bench$suffix.log" 2>&1
    r=$?; rc=$((rc | r)); pass=$((pass + 1))
    echo "bench pass '$filter' exit $r"
  done
  kill $sampler
  sort -n "$out/bench_clocks.txt" | awk '{a[NR]=$1} END {print "SM clock MHz during the benchmark: min", a[1], "median", a[int((NR+1)/2)], "max", a[NR], "(" NR " samples)"}'
  cat "$out"/bench*.log | grep -E "median|ERROR|status|failed" | awk '{print $1, $2, $3}' | sort
fi
if [[ $what == ab ]]; then
  # Two builds side by side: .carry/fp8gemm_bench (this commit) and .carry/fp8gemm_bench_base (an
  # earlier one, FP8GEMM_AB_BASE_COMMIT names it), alternated FP8GEMM_AB_ROUNDS times (default 2)
  # on the same filter. Each process times cuBLASLt beside our kernels, so each row's ratio to
  # cuBLASLt is a same-process figure; bench/ab_compare.py compares the two builds' ratios.
  (while :; do nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits; sleep 0.5; done) \
    > "$out/bench_clocks.txt" 2>&1 &
  sampler=$!
  for round in $(seq 1 "${FP8GEMM_AB_ROUNDS:-2}"); do
    for which in new base; do
      bin=.carry/fp8gemm_bench$([[ $which == base ]] && echo _base)
      timeout "${FP8GEMM_BENCH_TIMEOUT:-400}" "$bin" --benchmark_repetitions=5 \
        --benchmark_enable_random_interleaving=true --benchmark_filter="${FP8GEMM_BENCH_FILTER:-.}" \
        --benchmark_report_aggregates_only=true --benchmark_min_time="${FP8GEMM_BENCH_MIN_TIME:-0.02}" \
        --benchmark_out="$out/ab_${which}_$round.json" --benchmark_out_format=json \
        > "$out/ab_${which}_$round.log" 2>&1
      r=$?; rc=$((rc | r))
      echo "ab round $round $which exit $r"
    done
  done
  kill $sampler
  sort -n "$out/bench_clocks.txt" | awk '{a[NR]=$1} END {print "SM clock MHz during the benchmark: min", a[1], "median", a[int((NR+1)/2)], "max", a[NR], "(" NR " samples)"}'
  python3 bench/ab_compare.py "$out"/ab_new_*.json -- "$out"/ab_base_*.json | tee "$out/ab_compare.txt"
fi
if [[ $what == tune ]]; then
  # fp8gemm_tune (bench/tune.cu) on FP8GEMM_TUNE_SHAPES (default bench/shapes/llm_shapes.csv) with
  # FP8GEMM_TUNE_ARGS (e.g. --granularities per_tensor,per_channel); JSON to tune.json (written
  # point by point: a run cut short keeps what it finished), SM clock and power sampled twice a
  # second (tune_smi.csv). FP8GEMM_TUNE_TIMEOUT seconds (default 500).
  smi_start "$out/tune_smi.csv"
  # shellcheck disable=SC2086  # FP8GEMM_TUNE_ARGS is a list of arguments
  timeout "${FP8GEMM_TUNE_TIMEOUT:-500}" .carry/fp8gemm_tune \
    --shapes "${FP8GEMM_TUNE_SHAPES:-bench/shapes/llm_shapes.csv}" --out "$out/tune.json" \
    --commit "$(cat .carry/COMMIT 2>/dev/null || echo unknown)" ${FP8GEMM_TUNE_ARGS:-} \
    > "$out/tune.log" 2>&1
  r=$?; rc=$((rc | r))
  echo "tune exit $r: $(grep -c auto/lt "$out/tune.log") points"
  smi_stop "$out/tune_smi.csv" sweep
  tail -3 "$out/tune.log"
fi
if [[ $what == grouped ]]; then
  # GroupedGemm: its GPU test, compute-sanitizer memcheck on the test (bad counts included), then
  # fp8gemm_grouped_bench (bench/grouped_bench.cu) with FP8GEMM_GROUPED_ARGS, SM clock and power
  # sampled twice a second (grouped_smi.csv); JSON to grouped.json.
  timeout "${FP8GEMM_TEST_TIMEOUT:-200}" .carry/fp8gemm_grouped_gemm_gpu_test > "$out/grouped_test.log" 2>&1
  r=$?; rc=$((rc | r))
  echo "grouped test exit $r: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/grouped_test.log" | tr '\n' ' ')"
  if [[ ${FP8GEMM_SANITIZE:-1} != 0 ]]; then
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 .carry/fp8gemm_grouped_gemm_gpu_test \
      --gtest_filter='GroupedGemmOnGpu.*' > "$out/grouped_memcheck.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "grouped memcheck exit $r: $(grep -E 'ERROR SUMMARY' "$out/grouped_memcheck.log" | tail -1)"
  fi
  smi_start "$out/grouped_smi.csv"
  # shellcheck disable=SC2086  # FP8GEMM_GROUPED_ARGS is a list of arguments
  timeout "${FP8GEMM_BENCH_TIMEOUT:-400}" .carry/fp8gemm_grouped_bench --out "$out/grouped.json" \
    --commit "$(cat .carry/COMMIT 2>/dev/null || echo unknown)" ${FP8GEMM_GROUPED_ARGS:-} \
    > "$out/grouped_bench.log" 2>&1
  r=$?; rc=$((rc | r))
  echo "grouped bench exit $r"
  smi_stop "$out/grouped_smi.csv" bench
  cat "$out/grouped_bench.log"
fi
if [[ $what == python ]]; then
  # the PyTorch ops: .carry/torch/_C_cuda.so (and _C_cpu.so) from scripts/h200_carry.sh, the
  # package from the working tree, the image's torch and pytest. FP8GEMM_TORCH_BENCH_ARGS: more
  # arguments of bench/torch_ops_bench.py (default: both dense modes and the grouped cases).
  export FP8GEMM_TORCH_LIB_DIR=$PWD/.carry/torch PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
  export PYTHONUNBUFFERED=1 FP8GEMM_COMMIT="$(cat .carry/COMMIT 2>/dev/null || echo unknown)"
  python3 -c 'import torch, fp8gemm; print("torch", torch.__version__, "backends", fp8gemm.backends())'
  r=$?; rc=$((rc | r))
  ldd .carry/torch/_C_cuda.so | grep -E 'stdc|torch' | tee "$out/torch_ldd.txt"
  if [[ ${FP8GEMM_SKIP_PYTEST:-0} != 1 ]]; then
    FP8GEMM_TEST_DEVICE=cuda timeout "$(within 400)" python3 -m pytest -q -p no:cacheprovider tests/python \
      > "$out/pytest_cuda.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "pytest (cuda) exit $r: $(tail -1 "$out/pytest_cuda.log")"
    timeout "$(within 120)" python3 examples/python/fp8_mlp.py --tokens 4096 --hidden 4096 --ffn 14336 2>&1 |
      tee "$out/fp8_mlp.log"
  fi
  if [[ ${FP8GEMM_SKIP_TORCH_BENCH:-0} != 1 ]]; then
    smi_start "$out/torch_bench_smi.csv"
    # shellcheck disable=SC2086  # a list of arguments
    timeout "$(within "${FP8GEMM_BENCH_TIMEOUT:-500}")" python3 bench/torch_ops_bench.py \
      --out "$out/torch_ops_bench.json" ${FP8GEMM_TORCH_BENCH_ARGS:-} > "$out/torch_bench.log" 2>&1
    r=$?; rc=$((rc | r))
    echo "torch ops bench exit $r"
    smi_stop "$out/torch_bench_smi.csv" bench
    tail -40 "$out/torch_bench.log"
  fi
fi
if [[ $what == blockwise ]]; then
  # Blockwise against cuBLASLt and DeepGEMM (bench/blockwise_bench.py): .carry/torch/_C_cuda.so,
  # and DeepGEMM from .carry/deepgemm.tgz (h200_carry.sh, FP8GEMM_DEEPGEMM_DIR) when present, built
  # here with the system GCC: the image's CXX (/opt/gcc) links a newer libstdc++ that crashes inside
  # the torch process. FP8GEMM_BLOCKWISE_ARGS: more arguments of the bench (e.g. --shapes both).
  export FP8GEMM_TORCH_LIB_DIR=$PWD/.carry/torch PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
  export PYTHONUNBUFFERED=1 FP8GEMM_COMMIT="$(cat .carry/COMMIT 2>/dev/null || echo unknown)"
  # a baseline: its failure is reported, and the bench runs without it
  [[ -f .carry/deepgemm.tgz ]] && build_deepgemm
  smi_start "$out/blockwise_smi.csv"
  # shellcheck disable=SC2086  # a list of arguments
  timeout "$(within "${FP8GEMM_BENCH_TIMEOUT:-300}")" python3 bench/blockwise_bench.py \
    --out "$out/blockwise_bench.json" ${FP8GEMM_BLOCKWISE_ARGS:-} > "$out/blockwise_bench.log" 2>&1
  r=$?; rc=$((rc | r))
  echo "blockwise bench exit $r"
  smi_stop "$out/blockwise_smi.csv" bench
  tail -30 "$out/blockwise_bench.log"
fi
if [[ $what == profile ]]; then
  # the GEMM kernels only (not the random fill): ours, cuBLASLt's (nvjet, xmma, cutlass), DeepGEMM's
  ncu_args=(ncu --clock-control none -k 'regex:[Gg]emm|xmma|cutlass|nvjet|kernel_entry'
    --launch-skip 30 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats)
  [[ ${FP8GEMM_NCU_STALLS:-0} == 1 ]] &&
    ncu_args+=(--metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio')
  for b in ${FP8GEMM_NCU_BENCHES:-}; do
    echo "==== $b" >> "$out/ncu.txt"
    timeout 300 "${ncu_args[@]}" .carry/fp8gemm_bench --benchmark_filter="^$b/manual_time\$" \
      --benchmark_min_time=0.002 --benchmark_repetitions=1 >> "$out/ncu.txt" 2>&1
    r=$?; rc=$((rc | r))
    echo "ncu $b exit $r"
  done
  # FP8GEMM_NCU_DEEPGEMM: shapes (MxNxK, space-separated) at which DeepGEMM's blockwise kernel
  # (bench/deepgemm_profile.py, DeepGEMM built from .carry/deepgemm.tgz) gets the same sections
  if [[ -n ${FP8GEMM_NCU_DEEPGEMM:-} ]]; then
    if [[ ! -f .carry/deepgemm.tgz ]]; then
      echo "ncu deepgemm: .carry/deepgemm.tgz not carried (h200_carry.sh FP8GEMM_DEEPGEMM_DIR), skipped"
      rc=1
    elif ! build_deepgemm; then
      rc=1  # the build's exit and last line are printed above
    else
      export PYTHONUNBUFFERED=1 DG_PRINT_CONFIGS=1 PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
      for shape in $FP8GEMM_NCU_DEEPGEMM; do
        echo "==== deepgemm $shape" >> "$out/ncu.txt"
        timeout "$(within 300)" "${ncu_args[@]}" python3 bench/deepgemm_profile.py "$shape" \
          >> "$out/ncu.txt" 2>&1
        r=$?; rc=$((rc | r))
        echo "ncu deepgemm $shape exit $r"
      done
    fi
  fi
fi
if [[ $what == power ]]; then
  if [[ -z ${FP8GEMM_POWER_BENCHES:-} ]]; then
    echo "power: set FP8GEMM_POWER_BENCHES to the benchmark names to run" >&2
    exit 2
  fi
  query=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_event_reasons.active
  nvidia-smi --query-gpu=$query --format=csv,noheader >/dev/null 2>&1 ||
    query=timestamp,power.draw,clocks.sm,temperature.gpu,clocks_throttle_reasons.active
  nvidia-smi --query-gpu=$query --format=csv,noheader,nounits -lms 100 > "$out/power_smi.csv" &
  sampler=$!
  for b in ${FP8GEMM_POWER_BENCHES:-}; do
    echo "$(date +%s.%N) start $b" >> "$out/power_phases.txt"
    timeout 300 .carry/fp8gemm_bench --benchmark_filter="^$b/manual_time\$" \
      --benchmark_min_time="${FP8GEMM_POWER_MIN_TIME:-0.5}" --benchmark_repetitions=1 \
      > "$out/power_run.log" 2>&1
    r=$?; rc=$((rc | r))
    cat "$out/power_run.log" >> "$out/power_bench.log"
    # the time line, or why there is none (a name that matched nothing, an error, a timeout)
    grep manual_time "$out/power_run.log" >> "$out/power_phases.txt" ||
      echo "$b: no time (exit $r); see power_bench.log" | tee -a "$out/power_phases.txt"
    echo "$(date +%s.%N) end $b" >> "$out/power_phases.txt"
  done
  kill $sampler
  rm -f "$out/power_run.log"
  python3 bench/power_phases.py "$out/power_phases.txt" "$out/power_smi.csv"
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$out/env.txt" 2>&1
# the device tool brings back at most 8 files: past that, the logs travel as one archive
if (($(ls "$out" | wc -l) > 8)); then
  (cd "$out" && tar czf logs.tar.gz --remove-files $(ls *.log *.txt | grep -v '^env.txt$'))
fi
exit $rc
