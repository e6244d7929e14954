#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The selection bars from fp8gemm_tune's JSON, per granularity:

  regret        = AutoGemm's median / the best candidate's median (geomean, worst): 1.00 is a
                  perfect pick; both timed in the same process, interleaved
  choice regret = the chosen candidate's own entry / the best candidate's: the pick alone (the
                  same kernel timed twice differs by the run's noise, which `regret` includes)
  host us added = AutoGemm::run's host time per launch minus Gemm::run's for the chosen config
  vs cuBLASLt   = cuBLASLt's median / AutoGemm's median (geomean, min, shapes below 0.95)
  best vs cuBLASLt = cuBLASLt's median / the best candidate's (what any pick could reach)

  waves         = the best candidate's output tiles x splits over the SMs, and the fraction of
                  its last wave's SM time that has work (tiles / SMs / ceil(tiles / SMs)): where
                  points below 0.95x cuBLASLt lose SM time to a partial last wave (a scheduler
                  that balances the last wave would win it back); tiles from the candidate's
                  kernel name (..._BMxBNx128_...)

  python3 bench/tune_report.py TUNE.json[.gz] [--worst 15] [--markdown]
"""
import argparse
import gzip
import json
import math
import re
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


def chosen_us(p):
    """The median of the candidate entry AutoGemm chose (same policy and split), or None."""
    for e in p["entries"]:
        if (e["kind"] == "candidate" and e["name"] == p["auto"]["choice"] and
                e["split_k"] == p["auto"]["split_k"]):
            return e["median_us"]
    return None


def host_overhead(p):
    """AutoGemm's host time per launch minus Gemm::run's for the same config (us), or None."""
    by = {e["kind"]: e for e in p["entries"] if e["kind"] != "candidate"}
    if "host_us" not in by.get("auto", {}) or "gemm" not in by:
        return None
    return by["auto"]["host_us"] - by["gemm"]["host_us"]


def wave_fill(p, sm_count):
    """(tiles, filled fraction of the waves' SM time) of the point's best candidate, or None."""
    best = p.get("best")
    if not best:
        return None
    for e in p["entries"]:
        if (e["kind"] == "candidate" and e["name"] == best["candidate"] and
                e["split_k"] == best["split_k"]):
            tile = re.search(r"_(\d+)x(\d+)x128_", e.get("detail", ""))
            if not tile:
                return None
            bm, bn = int(tile.group(1)), int(tile.group(2))
            tiles = -(-p["m"] // bm) * -(-p["n"] // bn) * best["split_k"]
            return tiles, tiles / sm_count / math.ceil(tiles / sm_count)
    return None


def mean_fill(waves):
    return sum(f for _, f in waves) / len(waves) if waves else float("nan")


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
    print("| granularity | points | cuBLASLt mode | regret geomean | regret worst | choice regret "
          "geomean | worst | > 1.10 | auto vs cuBLASLt geomean | min | < 0.95 | best vs cuBLASLt "
          "geomean | < 0.95 | host us added (median, max) | tiers |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for g, rs in sorted(by_g.items()):
        regret = [au / b for _, au, b, _, _ in rs if b]
        choice = [chosen_us(p) / b for p, _, b, _, _ in rs if b and chosen_us(p)]
        added = sorted(x for x in (host_overhead(p) for p, *_ in rs) if x is not None)
        vs = [lt / au for _, au, _, lt, _ in rs if lt]
        best_vs = [lt / b for _, _, b, lt, _ in rs if lt and b]
        modes = sorted({m for *_, m in rs})
        tiers = defaultdict(int)
        for p, *_ in rs:
            tiers[p["auto"]["tier"]] += 1
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %d | %s | %s | %s | %s |" % (
            g, len(rs), ", ".join(modes),
            "%.3f" % geomean(regret) if regret else "-", "%.3f" % max(regret) if regret else "-",
            "%.3f" % geomean(choice) if choice else "-", "%.3f" % max(choice) if choice else "-",
            sum(x > 1.10 for x in choice) if choice else "-",
            geomean(vs), min(vs), sum(x < 0.95 for x in vs),
            "%.3f" % geomean(best_vs) if best_vs else "-",
            sum(x < 0.95 for x in best_vs) if best_vs else "-",
            "%.2f, %.2f" % (added[len(added) // 2], added[-1]) if added else "-",
            ", ".join("%s %d" % kv for kv in sorted(tiers.items()))))
    print()
    print("waves of the best candidate (filled fraction of the waves' SM time), by its ratio "
          "to cuBLASLt:")
    for g, rs in sorted(by_g.items()):
        low, rest = [], []
        for p, _, b, lt, _ in rs:
            w = wave_fill(p, data["sm_count"])
            if w and b and lt:
                (low if lt / b < 0.95 else rest).append(w)
        if low or rest:
            print("  %-11s below 0.95x: %3d points, filled %.2f, one partial wave (tiles < SMs) "
                  "%d; the rest: %3d points, filled %.2f" % (
                      g, len(low), mean_fill(low), sum(t < data["sm_count"] for t, _ in low),
                      len(rest), mean_fill(rest)))
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
