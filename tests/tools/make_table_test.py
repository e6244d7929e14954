#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/make_table.py and bench/tune_report.py on synthetic fp8gemm_tune JSON: the best per
point becomes a range, neighbours with the same best merge, a later sweep replaces an earlier
one's point, ties at large M go to the least tile traffic, an --only-auto sweep and a sweep from
another GPU are refused, and the report's regret and cuBLASLt ratios are the numbers the entries
give.

  python3 tests/tools/make_table_test.py bench/make_table.py bench/tune_report.py
"""
import json
import os
import subprocess
import sys
import tempfile


def point(g, m, n, k, best, split, auto_us, best_us, lt_us, choice=None):
    choice = choice or best
    return {
        "model": "x", "layer": "y", "granularity": g, "m": m, "n": n, "k": k, "sm_count": 132,
        "auto": {"choice": choice, "split_k": 1, "tier": "table", "reason": "", "can_implement": "ok"},
        "best": {"candidate": best, "split_k": split, "median_us": best_us, "fastest_us": best_us},
        "entries": [
            {"kind": "candidate", "name": best, "detail": "", "split_k": split, "estimate_us": 1,
             "median_us": best_us, "host_us": 5, "us": [best_us]},
            {"kind": "candidate", "name": choice, "detail": "", "split_k": 1, "estimate_us": 1,
             "median_us": auto_us, "host_us": 5, "us": [auto_us]},
            {"kind": "auto", "name": "auto", "detail": choice, "split_k": 1, "estimate_us": 1,
             "median_us": auto_us, "host_us": 5.5, "us": [auto_us]},
            {"kind": "gemm", "name": "gemm", "detail": "", "split_k": 1, "estimate_us": 0,
             "median_us": auto_us, "host_us": 5.0, "us": [auto_us]},
            {"kind": "cublaslt", "name": "cublaslt", "detail": "per_tensor", "split_k": 1,
             "estimate_us": 0, "median_us": lt_us, "host_us": 6, "us": [lt_us]},
        ],
        "pruned": [], "refused": [],
    }


def sweep(points, commit, gpu="NVIDIA H200", only_auto=False):
    return {"tool": "fp8gemm_tune", "commit": commit, "date": "2026-12-04T00:00:00Z", "gpu": gpu,
            "sm_count": 132, "cuda_driver": 13000, "cuda_runtime": 13000, "cublaslt": 130100,
            "rounds": 5, "tie_fraction": 0.01, "prune": 3, "only_auto": only_auto,
            "shapes": "synthetic", "points": points}


def main():
    make_table, report = sys.argv[1], sys.argv[2]
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        first = sweep([
            point("per_tensor", 1, 4096, 4096, "sm90_wgmma_decode8", 1, 10, 10, 11),
            point("per_tensor", 16, 4096, 4096, "sm90_wgmma_decode8", 1, 10, 10, 11),
            point("per_tensor", 64, 4096, 4096, "sm90_wgmma_small_m", 1, 12, 12, 12),
            point("per_tensor", 200, 4096, 4096, "sm90_wgmma_default", 1, 20, 20, 15),
            point("per_channel", 200, 4096, 4096, "sm90_wgmma_default", 2, 20, 20, 30),
        ], "aaaaaaa")
        second = sweep([  # replaces M = 200 per-tensor
            point("per_tensor", 200, 4096, 4096, "sm90_wgmma_128x192", 1, 22, 18, 15,
                  choice="sm90_wgmma_default"),
        ], "bbbbbbb")
        f1, f2 = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        json.dump(first, open(f1, "w"))
        json.dump(second, open(f2, "w"))
        out = os.path.join(d, "table.hpp")
        r = subprocess.run([sys.executable, make_table, f1, f2, "--out", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, "make_table failed: " + r.stderr)
        text = open(out).read() if os.path.exists(out) else ""
        entries = [l.strip() for l in text.splitlines() if l.strip().startswith(("1", "2", "4"))
                   and l.strip().endswith("},")]
        want = [  # (N, K, m_lo, m_hi, candidate, split), in the generator's order
            '4096, 4096, 200, 200, "sm90_wgmma_default", 2},',        # per-channel first
            '4096, 4096, 1, 16, "sm90_wgmma_decode8", 1},',           # 1 and 16 merged
            '4096, 4096, 64, 64, "sm90_wgmma_small_m", 1},',
            '4096, 4096, 200, 200, "sm90_wgmma_128x192", 1},',        # the later sweep's
        ]
        check(entries == want, "entries: %s" % entries)
        check("kSm90H200TableSize = 4;" in text, "size line")
        check("aaaaaaa+bbbbbbb" in text, "provenance names both commits")
        check(max(len(l) for l in text.splitlines()) <= 100, "a line over 100 columns")

        bad = sweep([], "ccccccc", only_auto=True)
        fb = os.path.join(d, "c.json")
        json.dump(bad, open(fb, "w"))
        r = subprocess.run([sys.executable, make_table, fb, "--out", out], capture_output=True,
                           text=True)
        check(r.returncode != 0 and "only-auto" in r.stderr, "an --only-auto sweep is refused")
        other = sweep([], "ddddddd", gpu="NVIDIA H100")
        fo = os.path.join(d, "d.json")
        json.dump(other, open(fo, "w"))
        r = subprocess.run([sys.executable, make_table, f1, fo, "--out", out],
                           capture_output=True, text=True)
        check(r.returncode != 0 and "another GPU" in r.stderr, "another GPU's sweep is refused")
        # named with --also-gpu (same SM count), it joins, and the provenance says where it ran
        r = subprocess.run([sys.executable, make_table, f1, fo, "--out", out,
                            "--also-gpu", "NVIDIA H100"], capture_output=True, text=True)
        check(r.returncode == 0, "an --also-gpu sweep is taken: " + r.stderr)
        text = open(out).read() if os.path.exists(out) else ""
        check("on an NVIDIA H100 (same SM count" in text, "the other GPU's sweep is named")
        other_sms = sweep([], "eeeeeee", gpu="NVIDIA H100")
        other_sms["sm_count"] = 114
        fs = os.path.join(d, "e.json")
        json.dump(other_sms, open(fs, "w"))
        r = subprocess.run([sys.executable, make_table, f1, fs, "--out", out,
                            "--also-gpu", "NVIDIA H100"], capture_output=True, text=True)
        check(r.returncode != 0 and "another SM count" in r.stderr,
              "another SM count is refused even when named")

        # ties at M >= 1024 go to the least tile traffic (1/BM + 1/BN), unswapped tiles only, equal
        # traffic by the tool's order: the fastest is a swapped tile (99.8 us); within 1 % of it
        # 128 x 128 (the tool's best, first in its order), 128 x 256, then 256 x 128 (the same
        # traffic, later in the order) and a swapped 256 x 256 (least traffic, not counted); an
        # unswapped 256 x 256 1.4 % behind is no tie. At M = 1024: 128 x 256; at 512: the tool's.
        def tied(m, n):
            p = point("per_tensor", m, n, 8192, "sm90_wgmma_default", 1, 100, 100, 100)
            cand = lambda name, tile, us: {
                "kind": "candidate", "name": name, "detail": "sm90a_wgmma64xNx32_" + tile,
                "split_k": 1, "estimate_us": 1, "median_us": us, "host_us": 5, "us": [us]}
            p["entries"][0]["detail"] = "sm90a_wgmma64xNx32_128x128x128_w2x1_s6_x"
            p["entries"][1:2] = [
                cand("sm90_wgmma_decode128", "128x64x128_w1x1_s9_x_swapab", 99.8),
                cand("sm90_wgmma_large", "128x256x128_w2x1_s3_x", 100.7),
                cand("sm90_wgmma_256x128", "256x128x128_w2x1_s4_x", 100.6),
                cand("swapped_256x256", "256x256x128_w2x1_s2_x_swapab", 100.5),
                cand("plain_256x256", "256x256x128_w2x1_s2_x", 101.2)]
            return p
        ft = os.path.join(d, "t.json")
        json.dump(sweep([tied(1024, 4096), tied(512, 6144)], "fffffff"), open(ft, "w"))
        r = subprocess.run([sys.executable, make_table, ft, "--out", out], capture_output=True,
                           text=True)
        check(r.returncode == 0, "make_table on ties failed: " + r.stderr)
        text = open(out).read() if os.path.exists(out) else ""
        check('4096, 8192, 1024, 1024, "sm90_wgmma_large", 1},' in text,
              "a tie at M = 1024 goes to the first tile of least traffic, unswapped, within 1 %")
        check('6144, 8192, 512, 512, "sm90_wgmma_default", 1},' in text,
              "a tie at M = 512 keeps the tool's order")
        check("warning" not in r.stderr, "no warning for a sweep without the tool's rule")
        # a sweep whose tool applied the rule (tie_traffic_m) and disagrees is reported
        marked = sweep([tied(1024, 4096)], "ggggggg")
        marked["tie_traffic_m"] = 1024
        fm = os.path.join(d, "m.json")
        json.dump(marked, open(fm, "w"))
        r = subprocess.run([sys.executable, make_table, fm, "--out", out], capture_output=True,
                           text=True)
        check(r.returncode == 0 and "warning" in r.stderr and "sm90_wgmma_large" in r.stderr,
              "a disagreement with the tool's rule is reported: " + r.stderr)

        # report on the second sweep: auto 22 us, its chosen candidate 22 us, best 18, cuBLASLt 15
        r = subprocess.run([sys.executable, report, f2], capture_output=True, text=True)
        check(r.returncode == 0, "tune_report failed: " + r.stderr)
        row = [l for l in r.stdout.splitlines() if l.startswith("| per_tensor")]
        check(len(row) == 1, "one per_tensor row")
        if row:
            cells = [c.strip() for c in row[0].strip("|").split("|")]
            # regret 22/18, choice regret 22/18, auto vs cuBLASLt 15/22, best vs cuBLASLt 15/18
            check(cells[3] == "%.3f" % (22 / 18), "regret geomean %s" % cells[3])
            check(cells[5] == "%.3f" % (22 / 18), "choice regret %s" % cells[5])
            check(cells[7] == "1" , "choices above 1.10: %s" % cells[7])
            check(cells[8] == "%.3f" % (15 / 22), "auto vs cuBLASLt %s" % cells[8])
            check(cells[10] == "1", "below 0.95: %s" % cells[10])
            check(cells[11] == "%.3f" % (15 / 18), "best vs cuBLASLt %s" % cells[11])
            check(cells[13] == "0.50, 0.50", "host us added %s" % cells[13])
    for f in failures:
        print("FAIL:", f)
    print("make_table_test: %d checks failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
