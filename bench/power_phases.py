#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Power and SM clock while each benchmark of a sustained run was running (h200_run.sh power).

usage: power_phases.py PHASES SMI [--skip SECONDS]
  PHASES: lines "<unix time> start <benchmark>", the benchmark's own output line(s), and
          "<unix time> end <benchmark>" (h200_run.sh power writes them);
  SMI:    nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,
          clocks_event_reasons.active --format=csv,noheader,nounits samples (.gz allowed).
nvidia-smi prints local time: run this where the samples were taken, or in the same time zone
(the H200 and this project's machines run in UTC). Samples from `--skip` seconds after a start
(operand setup and warm-up; default 4) to half a second before its end count. Per benchmark:
its reported time, the samples in the window, how many of them had the software power cap
(clock event bit 0x4) active, and the median power (W) and SM clock (MHz) over the capped
samples (the loaded GEMM; the others are ramp-up or host setup inside the window). power.draw
is NVML's average over about the last second, so neighbouring 100-ms samples overlap.
"""
import argparse
import datetime
import gzip
import re
import statistics

kPowerCap = 0x4  # NVML clock event reason: software power cap


def read_samples(path):
    opener = gzip.open if path.endswith(".gz") else open
    samples = []
    with opener(path, "rt") as f:
        for line in f:
            p = [x.strip() for x in line.split(",")]
            if len(p) < 5:
                continue
            try:
                t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
                samples.append((t, float(p[1]), float(p[2]), int(p[4], 16)))
            except ValueError:
                continue  # a header or a cut line
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("phases")
    ap.add_argument("smi")
    ap.add_argument("--skip", type=float, default=4.0)
    args = ap.parse_args()
    samples = read_samples(args.smi)
    start = {}  # benchmark -> (start time, its reported time or None)
    print("| benchmark | reported | window samples | capped | power W (median, capped) | "
          "SM MHz (median, capped) |")
    print("|---|---|---|---|---|---|")
    for line in open(args.phases):
        m = re.match(r"^(\d+\.\d+) (start|end) (\S+)", line)
        if not m:
            t = re.search(r"^(\S+)/manual_time\s+(\d+(\.\d+)?) (ns|us|ms|s)\b", line)
            if t and t.group(1) in start:
                start[t.group(1)] = (start[t.group(1)][0], t.group(2) + " " + t.group(4))
            continue
        t, what, name = float(m.group(1)), m.group(2), m.group(3)
        if what == "start":
            start[name] = (t, None)
            continue
        if name not in start:
            print(f"| {name} | end without a start | - | - | - | - |")
            continue
        t0, reported = start.pop(name)
        window = [s for s in samples if t0 + args.skip <= s[0] <= t - 0.5]
        capped = [s for s in window if s[3] & kPowerCap]
        row = f"| {name} | {reported or 'no time reported'} | {len(window)} | {len(capped)} | "
        if capped:
            row += (f"{statistics.median(s[1] for s in capped):.0f} | "
                    f"{statistics.median(s[2] for s in capped):.0f} |")
        else:
            row += "- | - |"
        print(row)
    for name, (t0, reported) in start.items():
        print(f"| {name} | {reported or 'no time reported'}; no end (cut by a timeout?) | - | - | - | - |")


if __name__ == "__main__":
    main()
