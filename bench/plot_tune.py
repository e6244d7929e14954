#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plots fp8gemm_tune's JSON: TFLOP/s against M, one panel per (N, K) of the shape set, AutoGemm
against cuBLASLt (same process, same mode), with the power-capped ceiling as a line.

  python3 bench/plot_tune.py TUNE.json[.gz] --granularity per_tensor --out docs/h200_llm_shapes.png
      [--ceiling 1300]   (TFLOP/s; the H200's sustained FP8 rate at the 700 W cap, docs/performance.md)

Needs matplotlib (not a test dependency: pip install matplotlib in any environment).
"""
import argparse
import gzip
import json
import math
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def open_any(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tune_json")
    ap.add_argument("--granularity", default="per_tensor")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ceiling", type=float, default=1300.0)
    a = ap.parse_args()
    data = json.load(open_any(a.tune_json))
    panels = defaultdict(list)  # (n, k) -> [(m, auto TF, cublaslt TF)]
    names = defaultdict(set)
    for p in data["points"]:
        if p["granularity"] != a.granularity:
            continue
        by = {e["kind"]: e for e in p["entries"] if e["kind"] != "candidate"}
        if "auto" not in by or "cublaslt" not in by:
            continue
        flop = 2.0 * p["m"] * p["n"] * p["k"]
        panels[(p["n"], p["k"])].append(
            (p["m"], flop / by["auto"]["median_us"] / 1e6, flop / by["cublaslt"]["median_us"] / 1e6))
        names[(p["n"], p["k"])].add("%s %s" % (p["model"], p["layer"]))
    keys = sorted(panels)
    cols = 6
    rows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        pts = sorted(panels[key])
        ms = [m for m, _, _ in pts]
        ax.plot(ms, [x for _, x, _ in pts], "o-", ms=3, lw=1.2, label="fp8gemm AutoGemm")
        ax.plot(ms, [y for _, _, y in pts], "s--", ms=3, lw=1.0, label="cuBLASLt")
        ax.axhline(a.ceiling, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(1, a.ceiling * 1.3)
        first = sorted(names[key])[0]
        ax.set_title("N=%d K=%d\n%s" % (key[0], key[1], first), fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6, loc="lower right")
    fig.suptitle("%s, %s, %s, commit %s: TFLOP/s against M (log-log); dotted: %.0f TFLOP/s, "
                 "the sustained rate at the 700 W cap" %
                 (data["gpu"], a.granularity, data["date"][:10], data["commit"], a.ceiling),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(a.out, dpi=80)
    print("%s: %d panels" % (a.out, len(keys)))


if __name__ == "__main__":
    main()
