#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes AutoGemm's measured sm_90 table (include/fp8gemm/device/selection/sm90_h200_table.hpp)
from fp8gemm_tune's JSON, or with --csv a table file AutoGemm reads at run time (FP8GEMM_TABLE
or selection::load_table; the format: include/fp8gemm/device/selection/table_file.hpp).

  python3 bench/make_table.py TUNE.json[.gz] [TUNE2.json[.gz] ...] [--smi tune_smi.csv[.gz] ...]
                              [--driver 580.159.04]
                              [--out include/fp8gemm/device/selection/sm90_h200_table.hpp]
                              [--csv my_gpu_table.csv] [--rename OLD=NEW ...]

Several sweeps (of one GPU): a later file's point replaces an earlier file's at the same
(granularity, M, N, K); the provenance names each file's commit, date and points. A sweep of
another GPU with the same SM count is taken only when named with --also-gpu (the table is looked
up by SM count); the provenance then names that sweep's GPU.

Per (granularity, N, K) the measured M values are sorted; each gets the tool's best candidate
(the fastest median, ties within the tool's tie fraction broken by the candidate order, then the
smaller split; at M >= 1024 by the least tile traffic first: best_of). Neighbouring measured M
values with the same best merge into one range [m_a, m_b], which then also covers the M values
between them; an M between two measured values with different
bests is in no entry, so the model (tier 2) decides it. Entries are per-tensor / per-channel /
blockwise, promoted accumulation, identity epilogue: what the tool measures.
"""
import argparse
import gzip
import json
import re
import statistics
import sys
from collections import defaultdict

GRANULARITY = {"per_tensor": "kPerTensor", "per_channel": "kPerChannel", "blockwise": "kBlockwise"}


def open_any(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def sm_clock(smi_path):
    """Median SM clock (MHz) over the samples taken while the GPU was busy (power > 150 W)."""
    busy = []
    for line in open_any(smi_path):
        f = [x.strip() for x in line.split(",")]
        try:  # "1500" or "1500 MHz" (nvidia-smi's csv with units)
            clock, power = float(f[1].split()[0]), float(f[2].split()[0])
        except (IndexError, ValueError):
            continue
        if power > 150:
            busy.append(clock)
    if not busy:
        return "not sampled"
    return "median %d MHz (%d-%d) over %d samples above 150 W" % (
        statistics.median(busy), min(busy), max(busy), len(busy))


# Ties at M >= TRAFFIC_TIE_M go to the candidate whose tile moves the fewest operand bytes per
# output (1 / BM + 1 / BN; swapped tiles excluded), as bench/tune.cu decides them since
# 2026-12-07; applied here to the earlier sweeps' points as well (docs/selection.md).
TRAFFIC_TIE_M = 1024


def tile_traffic(detail):
    """1 / BM + 1 / BN of a candidate's config name (e.g. sm90a_wgmma64xNx32_128x256x128_w2x1_...),
    None for a swapped tile or a name without a tile."""
    m = re.search(r"_(\d+)x(\d+)x\d+_w\d", detail or "")
    if not m or "swapab" in detail:
        return None
    return 1.0 / int(m.group(1)) + 1.0 / int(m.group(2))


def best_of(p, tie_fraction):
    """(candidate, split) of point p: the tool's best; at M >= TRAFFIC_TIE_M, among the candidates
    within tie_fraction of the fastest median, the first (in the tool's order of candidates and
    splits, the entries' order) of the least tile traffic, where one has a traffic."""
    chosen = (p["best"]["candidate"], p["best"]["split_k"])
    if p["m"] < TRAFFIC_TIE_M:
        return chosen
    timed = [e for e in p["entries"] if e["kind"] == "candidate" and e.get("median_us")]
    if not timed:
        return chosen
    fastest = min(e["median_us"] for e in timed)
    ties = [(tile_traffic(e["detail"]), i, e) for i, e in enumerate(timed)
            if e["median_us"] <= fastest * (1 + tie_fraction) and tile_traffic(e["detail"])]
    if not ties:
        return chosen
    least = min(ties, key=lambda t: t[:2])[2]
    return (least["name"], least["split_k"])


def entries(sweeps):
    """[(granularity, n, k, m_lo, m_hi, candidate, split_k)], sorted; later sweeps win."""
    best = defaultdict(dict)  # (g, n, k) -> {m: (candidate, split)}
    for data in sweeps:
        for p in data["points"]:
            if "best" not in p:
                continue
            chosen = best_of(p, data["tie_fraction"])
            # a sweep whose tool applied the same rule (it says from which M) must agree with it
            if (data.get("tie_traffic_m") == TRAFFIC_TIE_M and
                    chosen != (p["best"]["candidate"], p["best"]["split_k"])):
                print("make_table.py: warning: %s at %d x %d x %d: the tool's best %s/%d, "
                      "the rule's %s/%d" % (p["granularity"], p["m"], p["n"], p["k"],
                                            p["best"]["candidate"], p["best"]["split_k"],
                                            *chosen), file=sys.stderr)
            best[(p["granularity"], p["n"], p["k"])][p["m"]] = chosen
    out = []
    for (g, n, k), by_m in sorted(best.items()):
        run = None  # [m_lo, m_hi, candidate, split]
        for m in sorted(by_m):
            c, s = by_m[m]
            if run and (run[2], run[3]) == (c, s):
                run[1] = m
            else:
                if run:
                    out.append((g, n, k, *run))
                run = [m, m, c, s]
        if run:
            out.append((g, n, k, *run))
    return out


def write_csv(path, data, prov, rows):
    """The run-time table file (table_file.hpp's format): target, SM count, provenance, entries."""
    lines = [
        "# AutoGemm's measured table, GENERATED by bench/make_table.py from fp8gemm_tune's JSON;",
        "# read with FP8GEMM_TABLE=<this file> or fp8gemm::selection::load_table(\"<this file>\").",
        "target,sm90",
        "sm_count,%d" % data["sm_count"],
        "provenance,%s" % prov,
        "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k",
    ]
    for g, n, k, lo, hi, c, s in rows:
        lines.append("%s,promoted,identity,%d,%d,%d,%d,%s,%d" % (g, n, k, lo, hi, c, s))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d entries for %d SMs" % (path, len(rows), data["sm_count"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tune_json", nargs="+")
    ap.add_argument("--smi", nargs="*", default=[],
                    help="the sweeps' nvidia-smi samples (timestamp, SM clock, power), in order")
    ap.add_argument("--driver", default="not recorded")
    ap.add_argument("--also-gpu", action="append", default=[],
                    help="a GPU name (as the tune JSON has it) whose sweeps may join the first "
                         "sweep's GPU's, at the same SM count")
    ap.add_argument("--out", default="include/fp8gemm/device/selection/sm90_h200_table.hpp")
    ap.add_argument("--csv", help="write a run-time table file here instead of the header")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                    help="a candidate's name in the sweeps as the library names it (an experiment "
                         "built the same policy under another name); the provenance lists it")
    a = ap.parse_args()
    sweeps = [json.load(open_any(f)) for f in a.tune_json]
    if a.csv and a.out != ap.get_default("out"):
        sys.exit("make_table.py: --csv and --out name two outputs: give one")
    if any("=" not in r for r in a.rename):
        sys.exit("make_table.py: --rename takes OLD=NEW")
    renames = dict(r.split("=", 1) for r in a.rename)
    for d in sweeps:
        for p in d["points"]:
            for e in p.get("entries", []):
                e["name"] = renames.get(e.get("name"), e.get("name"))
            if "best" in p:
                p["best"]["candidate"] = renames.get(p["best"]["candidate"], p["best"]["candidate"])
    for f, d in zip(a.tune_json, sweeps):
        if d.get("only_auto"):
            sys.exit("make_table.py: %s timed AutoGemm only (--only-auto): no candidates" % f)
        if d["sm_count"] != sweeps[0]["sm_count"]:
            sys.exit("make_table.py: %s is from a GPU with another SM count" % f)
        if d["gpu"] != sweeps[0]["gpu"] and d["gpu"] not in a.also_gpu:
            sys.exit("make_table.py: %s is from another GPU (%s; --also-gpu takes it)" %
                     (f, d["gpu"]))
    data = sweeps[0]  # the table's GPU; the newest sweep's CUDA and cuBLASLt versions
    newest = sweeps[-1]
    rows = entries(sweeps)
    cuda = "%d.%d" % (newest["cuda_runtime"] // 1000, newest["cuda_runtime"] % 1000 // 10)
    lt = newest["cublaslt"]
    commits = sorted({d["commit"] for d in sweeps})
    prov = ("%s, %d SMs, %s, commit %s, %s" %
            (data["gpu"], data["sm_count"], max(d["date"] for d in sweeps)[:10], "+".join(commits),
             "fp8gemm_tune"))
    others = sorted({d["gpu"] for d in sweeps} - {data["gpu"]})
    if others:
        prov = prov.replace(", %d SMs" % data["sm_count"],
                            " (and %s), %d SMs" % (", ".join(others), data["sm_count"]))
    if a.csv:
        if renames:
            prov += "; renamed " + ", ".join("%s = %s" % r for r in renames.items())
        write_csv(a.csv, data, prov, rows)
        return
    sources = []
    for i, (f, d) in enumerate(zip(a.tune_json, sweeps)):
        grans = sorted({p["granularity"] for p in d["points"]})
        sources.append("///   sweep %d:  %s" % (i + 1, f.split("/")[-1]))
        sources.append("///            commit %s, %s, %d points (%s), %d rounds" %
                       (d["commit"], d["date"], len(d["points"]), ", ".join(grans), d["rounds"]))
        if d["gpu"] != data["gpu"]:
            sources.append("///            on an %s (same SM count; shapes %s)" %
                           (d["gpu"], d["shapes"]))
        if d.get("complete") is False:
            sources.append("///            stopped after %d of %d points" %
                           (d["points_done"], d["points_planned"]))
        if i < len(a.smi):
            sources.append("///            SM clock %s" % sm_clock(a.smi[i]))
    for old, new in renames.items():
        sources.append("///   renamed: %s (an experiment's name) = %s" % (old, new))
    lines = [
        "// SPDX-License-Identifier: MIT",
        "/// AutoGemm's measured table for sm_90 (tier 1, device layer). GENERATED by",
        "/// bench/make_table.py from fp8gemm_tune's JSON: edit by re-running the tool, not by hand.",
        "/// Longer than the headers' ~600 lines: it is data, two lines per measured range. Its",
        "/// provenance is the one place in include/ that names commits and dates: a measured table",
        "/// must say what it measured.",
        "///",
        "/// Provenance of kSm90H200Table (later sweeps replace earlier ones' points):",
        "///   GPU:     %s, %d SMs (the table is looked up when a call plans for %d)" %
        (data["gpu"], data["sm_count"], data["sm_count"]),
    ] + (["///            and, where a sweep says so, %s" % ", ".join(others)] if others else []) + [
        "///   clocks:  as found (700 W power cap)",
        "///   driver:  %s, CUDA runtime %s, cuBLASLt %d" % (a.driver, cuda, lt),
        "///   method:  interleaved rounds, L2 rotated, median; ties within %.0f %% broken, from"
        % (100 * data["tie_fraction"]),
        "///            M = %d, by the least tile traffic (1/BM + 1/BN), then by the candidate"
        % TRAFFIC_TIE_M,
        "///            order, then the smaller split; shapes: %s" % data["shapes"],
        "///            (bench/tune.cu says how a sweep times; the JSON is in bench/results/<gpu>/)",
    ] + sources + [
        "/// Keys: granularity, accumulation (promoted), epilogue (identity), N, K, M in [m_lo, m_hi]:",
        "/// each measured M, with neighbours of the same best merged; other M values go to the model.",
        "#pragma once",
        "",
        "#include <cstddef>",
        "",
        '#include "fp8gemm/device/selection/table.hpp"',
        "",
        "namespace fp8gemm::selection {",
        "",
        "// Two lines per range, as generated:",
        "// clang-format off",
        "inline constexpr TableEntry kSm90H200Table[] = {",
    ]
    for g, n, k, lo, hi, c, s in rows:
        lines.append("    {GranularityClass::%s, AccumulationClass::kPromoted, EpilogueClass::kIdentity,"
                     % GRANULARITY[g])
        lines.append('     %d, %d, %d, %d, "%s", %d},' % (n, k, lo, hi, c, s))
    lines += [
        "};",
        "// clang-format on",
        "inline constexpr std::size_t kSm90H200TableSize = %d;" % len(rows),
        "",
        "constexpr TableView sm90_h200_table() {",
        "  return {kSm90H200Table, kSm90H200TableSize, %d," % data["sm_count"],
        '          "%s"};' % prov,
        "}",
        "",
        "}  // namespace fp8gemm::selection",
        "",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print("%s: %d entries from %d sweeps" % (a.out, len(rows), len(sweeps)))


if __name__ == "__main__":
    main()
