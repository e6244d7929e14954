#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot an fp8gemm_grouped_bench JSON: per case, the time of a graph-captured cuBLASLt loop over
the time of AutoGroupedGemm's pick (bench/grouped_report.py's rule) and of our dense kernel on
all rows (same FLOPs, no groups); 1.0 = the loop. Needs matplotlib.

    python3 bench/plot_grouped.py RESULTS.json docs/h200_grouped.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from grouped_report import auto_pick  # noqa: E402


def main(path, out):
    d = json.load(open(path))
    names, auto, dense = [], [], []
    for c in d["cases"]:
        e = {x["name"]: x["median_us"] for x in c["entries"]}
        loop = e.get("cublaslt_loop")
        if not loop:
            continue
        pick = auto_pick(-(-sum(c["rows"]) // c["groups"]), c["granularity"], c["k"],
                         c["groups"], c.get("n"), d.get("sms"), c.get("mode", "contiguous"))
        names.append(f"{c['name']} ({pick})")
        auto.append(loop / e[pick])
        dense.append(loop / e["dense_large_all_rows"])
    y = range(len(names))
    fig, ax = plt.subplots(figsize=(10, 0.42 * len(names) + 1.5))
    ax.barh([i + 0.2 for i in y], auto, height=0.4, label="AutoGroupedGemm's pick")
    ax.barh([i - 0.2 for i in y], [min(v, 5) for v in dense], height=0.4,
            label="our dense kernel on all rows (same FLOPs, no groups; capped at 5)")
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("cuBLASLt loop time / ours (higher is faster; 1 = the loop)")
    ax.set_title(f"Grouped FP8 GEMMs, {d['gpu']}, commit {d['commit']} "
                 "(CUDA graphs, same process, median of 7)", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
