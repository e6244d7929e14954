#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown table of an fp8gemm_grouped_bench JSON: per case the policy AutoGroupedGemm picks
(its measured rule, selection/targets.hpp), the fastest of ours, the cuBLASLt loop and our dense
kernel on all rows, as times and ratios (loop time / ours).

    python3 bench/grouped_report.py bench/results/h200/<date>_<commit>_grouped_bench.json
"""
import json
import sys

# AutoGroupedGemm<Sm90Target>'s rule (selection/targets.hpp: kMaxExpectedM; the few-tiles rule,
# docs/grouped.md#few-tiles, where groups, n and sms are given), by the entry names
# fp8gemm_grouped_bench gives those policies. rows_hint: the call's rows per group (the derived
# hint of a contiguous call is ceil(total rows / groups)).
def auto_pick(rows_hint, granularity, k, groups=None, n=None, sms=None, mode="contiguous"):
    if rows_hint <= 64:
        if granularity == "blockwise":
            return "small_64x64"
        return "decode16" if rows_hint <= 16 else "decode64"
    if granularity == "per_tensor" and k <= 1024:
        return "default_128x128"
    if groups and n and sms:
        tiles = groups * -(-rows_hint // 128) * -(-n // 256)
        # the 128 x 128 tiles, as many as uneven groups can make (batched: exact)
        most = (groups * -(-rows_hint // 128) if mode == "batched"
                else groups * (rows_hint + 127) // 128) * -(-n // 128)
        if 2 * tiles <= sms and most <= sms:
            return "default_128x128"
    return "large_128x256"


def main(path):
    d = json.load(open(path))
    print(f"{d['gpu']}, {d['sms']} SMs, commit {d['commit']}, {d['rounds']} rounds (median)\n")
    print("| case | rows | auto pick | µs | best of ours | µs | cuBLASLt loop µs | auto vs loop "
          "| dense, all rows µs | weights TB/s (auto) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in d["cases"]:
        e = {x["name"]: x["median_us"] for x in c["entries"]}
        rows = sum(c["rows"])
        hint = -(-rows // c["groups"])
        pick = auto_pick(hint, c["granularity"], c["k"], c["groups"], c.get("n"), d.get("sms"),
                         c.get("mode", "contiguous"))
        ours = {k: v for k, v in e.items() if not k.startswith("cublaslt")
                and k != "dense_large_all_rows" and not k.endswith("_direct")}
        best = min(ours, key=ours.get)
        loop = e.get("cublaslt_loop")
        ratio = f"{loop / e[pick]:.2f}" if loop else "-"
        tbs = c["weight_bytes"] / e[pick] * 1e-6
        print(f"| {c['name']} | {rows} | {pick} | {e[pick]:.1f} | {best} | {ours[best]:.1f} | "
              f"{loop:.1f} | {ratio} | {e.get('dense_large_all_rows', 0):.1f} | {tbs:.2f} |"
              if loop else
              f"| {c['name']} | {rows} | {pick} | {e[pick]:.1f} | {best} | {ours[best]:.1f} | - | - | "
              f"{e.get('dense_large_all_rows', 0):.1f} | {tbs:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
