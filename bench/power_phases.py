#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Power and SM clock while each benchmark of a sustained run was running (h200_run.sh power).

usage: power_phases.py PHASES SMI [--skip SECONDS]
  PHASES: lines "<unix time> start <benchmark>", the benchmark's own output line(s), and
          "<unix time> end <benchmark>" (h200_run.sh power writes them);
  SMI:    nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu,
          clocks_event_reasons.active --format=csv,noheader,nounits samples (.gz allowed).
Samples from `--skip` seconds after a start (operand setup and warm-up; default 4) to half a
second before its end count. Prints per benchmark: its reported time, samples, median power
(W), median SM clock (MHz) and the most frequent clock-event bitmask (0x4: software power cap).
"""
import argparse
import collections
import datetime
import gzip
import re
import statistics


def read_samples(path):
    opener = gzip.open if path.endswith(".gz") else open
    samples = []
    with opener(path, "rt") as f:
        for line in f:
            p = [x.strip() for x in line.split(",")]
            if len(p) < 5:
                continue
            try:
                t = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f")
                t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                samples.append((t, float(p[1]), float(p[2]), p[4]))
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
    start, reported = {}, {}
    print("| benchmark | reported | samples | power W (median) | SM MHz (median) | clock events |")
    print("|---|---|---|---|---|---|")
    for line in open(args.phases):
        m = re.match(r"^(\d+\.\d+) (start|end) (\S+)", line)
        if not m:
            name = line.split()[0] if line.split() else ""
            t = re.search(r"manual_time\s+(\d+(\.\d+)?) us", line)
            if t:
                reported[name.rsplit("/manual_time", 1)[0]] = t.group(1) + " us"
            continue
        t, what, name = float(m.group(1)), m.group(2), m.group(3)
        if what == "start":
            start[name] = t
            continue
        sel = [s for s in samples if start[name] + args.skip <= s[0] <= t - 0.5]
        if not sel:
            print(f"| {name} | {reported.get(name, '-')} | 0 | - | - | - |")
            continue
        events = collections.Counter(s[3] for s in sel).most_common(1)[0][0]
        print(f"| {name} | {reported.get(name, '-')} | {len(sel)} | "
              f"{statistics.median(s[1] for s in sel):.0f} | "
              f"{statistics.median(s[2] for s in sel):.0f} | {events} |")


if __name__ == "__main__":
    main()
