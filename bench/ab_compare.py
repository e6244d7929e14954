#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two builds of bench/gemm_bench.cu run alternately on one GPU (scripts/h200_run.sh ab):
  ab_compare.py NEW.json [NEW.json ...] -- BASE.json [BASE.json ...]

Each process timed cuBLASLt beside our kernels on the same inputs, so per process and row the
ratio r = baseline time / fp8gemm time (> 1: fp8gemm faster) is a same-process figure that the
GPU's clock and power state between processes does not move. Per row it prints the median over
the files of each build (median times, median ratio) and new ratio / base ratio (> 1: the new build
is faster relative to cuBLASLt). Baselines as bench/summarize.py picks them."""
import json
import statistics
import sys

from summarize import baseline_of


def medians(path):
    """{shape: {name: median real_time}} of one benchmark JSON."""
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        parts = [x for x in b["run_name"].split("/") if x != "manual_time"]
        impl, *policy, shape = parts
        rows.setdefault(shape, {})["/".join([impl] + policy)] = b["real_time"]
    return rows


def ratios(paths):
    """{(shape, policy): ([fp8gemm times], [ratios])} over the files of one build."""
    out = {}
    for path in paths:
        for shape, impls in medians(path).items():
            for name, t in impls.items():
                if not name.startswith("fp8gemm/"):
                    continue
                base = impls.get(baseline_of(name))
                if base is None:
                    continue
                times, rs = out.setdefault((shape, name), ([], []))
                times.append(t)
                rs.append(base / t)
    return out


def main(argv):
    if "--" not in argv:
        sys.exit("usage: ab_compare.py NEW.json ... -- BASE.json ...")
    cut = argv.index("--")
    new, base = ratios(argv[:cut]), ratios(argv[cut + 1:])
    print("| M×N×K | fp8gemm policy | new µs | base µs | new ratio | base ratio | new / base |")
    print("|---|---|---|---|---|---|---|")
    changes = []
    for key in sorted(new, key=lambda k: ([int(x) for x in k[0].split("x")], k[1])):
        if key not in base:
            continue
        (nt, nr), (bt, br) = new[key], base[key]
        rn, rb = statistics.median(nr), statistics.median(br)
        changes.append(rn / rb)
        print(f"| {key[0]} | {key[1][len('fp8gemm/'):]} | {statistics.median(nt):.1f} | "
              f"{statistics.median(bt):.1f} | {rn:.3f} | {rb:.3f} | {rn / rb:.3f} |")
    if changes:
        print(f"\nnew / base over {len(changes)} rows: min {min(changes):.3f}, "
              f"median {statistics.median(changes):.3f}, max {max(changes):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
