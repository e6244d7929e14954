#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a Google Benchmark JSON from bench/gemm_bench.cu into docs/benchmark.md's markdown table: median
time and TFLOP/s of each fp8gemm policy and of the cuBLASLt run it is compared with per shape,
and the ratio (cuBLASLt time / fp8gemm time: > 1 means fp8gemm is faster).

Baselines: fast-accumulation policies against cuBLASLt's fast accumulation, the fused GELU against
cuBLASLt followed by a GELU kernel, blockwise against cuBLASLt's 1x128 / 128x128 mode, everything
else against cuBLASLt's default (per-tensor, promoted)."""
import json
import sys


def baseline_of(policy):
    if "fast_accum" in policy:
        return "cublaslt_fast_accum"
    if "gelu" in policy:
        return "cublaslt_then_gelu"
    if "blockwise" in policy:
        return "cublaslt_blockwise"
    return "cublaslt"


def main(path):
    data = json.load(open(path))
    rows = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = [x for x in b["run_name"].split("/") if x != "manual_time"]
        impl, *policy, shape = parts
        name = "/".join([impl] + policy)
        tf = b.get("TFLOP/s", 0.0)
        rows.setdefault(shape, {})[name] = (b["real_time"], tf / 1e12 if tf > 1e6 else tf)
    print("| M×N×K | fp8gemm policy | µs | TFLOP/s | baseline | baseline µs | baseline TFLOP/s "
          "| fp8gemm / baseline |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, impls in sorted(rows.items(), key=lambda kv: [int(x) for x in kv[0].split("x")]):
        for name, (t, tf) in sorted(impls.items()):
            if not name.startswith("fp8gemm/"):
                continue
            policy = name.split("/", 1)[1]
            base_name = baseline_of(policy)
            base = impls.get(base_name)
            ratio = f"{base[0] / t:.2f}" if base else "n/a"
            bt = f"{base[0]:.1f}" if base else "n/a"
            btf = f"{base[1]:.0f}" if base else "n/a"
            print(f"| {shape} | {policy} | {t:.1f} | {tf:.0f} | {base_name} | {bt} | {btf} "
                  f"| {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
