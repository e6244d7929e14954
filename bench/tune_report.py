#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The selection bars from fp8gemm_tune's JSON, per granularity:

  regret        = AutoGemm's median / the best candidate's median (geomean, worst): 1.00 is a
                  perfect pick; both timed in the same process, interleaved
  vs cuBLASLt   = cuBLASLt's median / AutoGemm's median (geomean, min, shapes below 0.95)
  best vs cuBLASLt = cuBLASLt's median / the best candidate's (what any pick could reach)

  python3 bench/tune_report.py TUNE.json[.gz] [--worst 15] [--markdown]
"""
import argparse
import gzip
import json
import math
from collections import defaultdict


def open_any(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def rows(data):
    """Per point: (point, auto_us, best_us or None, cublaslt_us or None, cublaslt mode)."""
    out = []
    for p in data["points"]:
        by = {e["kind"]: e for e in p["entries"] if e["kind"] != "candidate"}
        if "auto" not in by:
            continue
        best = p["best"]["fastest_us"] if "best" in p else None
        lt = by.get("cublaslt")
        out.append((p, by["auto"]["median_us"], best, lt["median_us"] if lt else None,
                    lt["detail"] if lt else "-"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tune_json")
    ap.add_argument("--worst", type=int, default=15, help="list this many lowest auto/cuBLASLt")
    a = ap.parse_args()
    data = json.load(open_any(a.tune_json))
    print("%s: %s, %d SMs, commit %s, %s, %d points" %
          (a.tune_json, data["gpu"], data["sm_count"], data["commit"], data["date"],
           len(data["points"])))
    by_g = defaultdict(list)
    for r in rows(data):
        by_g[r[0]["granularity"]].append(r)
    print("| granularity | points | cuBLASLt mode | regret geomean | regret worst | auto vs cuBLASLt "
          "geomean | min | < 0.95 | best vs cuBLASLt geomean | < 0.95 | tiers |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for g, rs in sorted(by_g.items()):
        regret = [au / b for _, au, b, _, _ in rs if b]
        vs = [lt / au for _, au, _, lt, _ in rs if lt]
        best_vs = [lt / b for _, _, b, lt, _ in rs if lt and b]
        modes = sorted({m for *_, m in rs})
        tiers = defaultdict(int)
        for p, *_ in rs:
            tiers[p["auto"]["tier"]] += 1
        print("| %s | %d | %s | %s | %s | %.3f | %.3f | %d | %s | %s | %s |" % (
            g, len(rs), ", ".join(modes),
            "%.3f" % geomean(regret) if regret else "-", "%.3f" % max(regret) if regret else "-",
            geomean(vs), min(vs), sum(x < 0.95 for x in vs),
            "%.3f" % geomean(best_vs) if best_vs else "-",
            sum(x < 0.95 for x in best_vs) if best_vs else "-",
            ", ".join("%s %d" % kv for kv in sorted(tiers.items()))))
    print()
    print("lowest auto vs cuBLASLt:")
    ranked = sorted(((lt / au, p, au, b, lt) for p, au, b, lt, _ in rows(data) if lt),
                    key=lambda r: r[0])
    for ratio, p, au, b, lt in ranked[:a.worst]:
        print("  %.3f  %-11s %5d x %6d x %5d  auto %-28s %8.1f us  best %s  cuBLASLt %8.1f us" %
              (ratio, p["granularity"], p["m"], p["n"], p["k"],
               p["auto"]["choice"] + "/" + str(p["auto"]["split_k"]), au,
               "%8.1f us" % b if b else "-", lt))


if __name__ == "__main__":
    main()
