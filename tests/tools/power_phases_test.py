#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/power_phases.py on synthetic phases and nvidia-smi samples: the window, the capped
samples' medians, the reported time (any unit), and the rows for a missing end, an end without
a start, a run with no time line, and a repeated name whose second run printed nothing.

usage: power_phases_test.py PATH/TO/power_phases.py
"""
import datetime
import gzip
import os
import subprocess
import sys
import tempfile

T0 = 1_800_000_000.0  # any unix time; samples are written in local time, as nvidia-smi does


def smi_line(t, watts, mhz, events):
    stamp = datetime.datetime.fromtimestamp(t).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
    return f"{stamp}, {watts:.2f}, {mhz}, 40, 0x{events:016x}\n"


def main():
    script = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        phases = [
            f"{T0:.6f} start fp8gemm/a/8192x8192x8192",
            "fp8gemm/a/8192x8192x8192/manual_time        900 us        10038 us          773",
            f"{T0 + 10:.6f} end fp8gemm/a/8192x8192x8192",
            f"{T0 + 11:.6f} start cublaslt/b/4096",
            "cublaslt/b/4096/manual_time       1.50 ms        10 ms          7",
            f"{T0 + 21:.6f} end cublaslt/b/4096",
            f"{T0 + 22:.6f} end orphan/end",
            f"{T0 + 23:.6f} start quiet/run",
            "quiet/run: no time (exit 1); see power_bench.log",
            f"{T0 + 33:.6f} end quiet/run",
            f"{T0 + 34:.6f} start twice/run",
            "twice/run/manual_time        50.0 us        1 us          7",
            f"{T0 + 44:.6f} end twice/run",
            f"{T0 + 45:.6f} start twice/run",
            f"{T0 + 55:.6f} end twice/run",
            f"{T0 + 56:.6f} start cut/run",
        ]
        with open(os.path.join(d, "phases.txt"), "w") as f:
            f.write("\n".join(phases) + "\n")
        # every 100 ms from T0 to T0 + 60: setup (idle, uncapped) for the first 5 s of each run,
        # then capped at 690 W / 1400 MHz; quiet/run never capped
        with gzip.open(os.path.join(d, "smi.csv.gz"), "wt") as f:
            f.write("timestamp, power.draw [W], clocks.sm [MHz], temperature.gpu, reasons\n")
            for i in range(600):
                t = T0 + i / 10
                starts = [0, 11, 23, 34, 45, 56]
                since = t - max(s + T0 for s in starts if s + T0 <= t)
                quiet = T0 + 23 <= t < T0 + 34
                if since < 5 or quiet:
                    f.write(smi_line(t, 80.0, 1980, 0x1))
                else:
                    f.write(smi_line(t, 690.0 + (i % 3), 1400 + 15 * (i % 3), 0x4))
        out = subprocess.run([sys.executable, script, os.path.join(d, "phases.txt"),
                              os.path.join(d, "smi.csv.gz")], capture_output=True, text=True,
                             check=True).stdout
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()[2:]]

    def expect(cond, what):
        if not cond:
            failures.append(what)

    by = {}
    for r in rows:
        by.setdefault(r[0], []).append(r)
    a = by["fp8gemm/a/8192x8192x8192"][0]
    # window T0 + 4 .. T0 + 9.5: 56 samples, capped from T0 + 5: 46; medians 691 W, 1415 MHz
    expect(a[1] == "900 us", f"a's time: {a}")
    expect(a[2] == "56" and a[3] == "46", f"a's window / capped counts: {a}")
    expect(a[4] == "691" and a[5] == "1415", f"a's medians: {a}")
    expect(by["cublaslt/b/4096"][0][1] == "1.50 ms", f"b's time in ms: {by['cublaslt/b/4096']}")
    expect("end without a start" in by["orphan/end"][0][1], f"orphan end: {by['orphan/end']}")
    q = by["quiet/run"][0]
    expect(q[1] == "no time reported" and q[3] == "0" and q[4] == "-", f"quiet run: {q}")
    t = by["twice/run"]
    expect(len(t) == 2 and t[0][1] == "50.0 us" and t[1][1] == "no time reported",
           f"a repeated name keeps its own time: {t}")
    expect("no end" in by["cut/run"][0][1], f"a start without an end: {by['cut/run']}")
    if failures:
        print(out)
        for f in failures:
            print("FAIL:", f)
        return 1
    print(f"power_phases.py: {len(rows)} rows as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
