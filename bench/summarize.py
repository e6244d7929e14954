#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a Google Benchmark JSON from bench/gemm_bench.cu into the README's markdown table:
median time and TFLOP/s of each fp8gemm policy and of cuBLASLt per shape, and the ratio."""
import json
import sys


def main(path):
    data = json.load(open(path))
    rows = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = [x for x in b["run_name"].split("/") if x != "manual_time"]
        impl, *policy, shape = parts
        name = "/".join([impl] + policy)
        rows.setdefault(shape, {})[name] = (b["real_time"], b.get("TFLOP/s", 0.0) / 1e12
                                            if b.get("TFLOP/s", 0.0) > 1e6 else b.get("TFLOP/s", 0.0))
    print("| M×N×K | cuBLASLt µs | cuBLASLt TFLOP/s | fp8gemm policy | µs | TFLOP/s | fp8gemm / cuBLASLt |")
    print("|---|---|---|---|---|---|---|")
    for shape, impls in sorted(rows.items(), key=lambda kv: [int(x) for x in kv[0].split("x")]):
        base = impls.get("cublaslt")
        for name, (t, tf) in impls.items():
            if name == "cublaslt":
                continue
            ratio = f"{base[0] / t:.2f}" if base else "n/a"
            bt = f"{base[0]:.1f}" if base else "n/a"
            btf = f"{base[1]:.0f}" if base else "n/a"
            print(f"| {shape} | {bt} | {btf} | {name.split('/', 1)[1]} | {t:.1f} | {tf:.0f} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
