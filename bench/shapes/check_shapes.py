#!/usr/bin/env python3
"""Validate bench/shapes/llm_shapes.csv and print shape-set counts.

Usage: python3 bench/shapes/check_shapes.py [path/to/llm_shapes.csv] [--min-distinct N]

Exit status 1 on any error: missing/unknown columns, empty fields, non-integer or
non-positive n/k/m, n or k not a multiple of 16, blockwise listed where n or k is
not a multiple of 128, unknown granularity, duplicate (model, layer) rows, or fewer
than --min-distinct (default 100) distinct (m, n, k) problems.
"""
import csv
import os
import sys
from collections import Counter, defaultdict

COLUMNS = ["model", "layer", "n", "k", "m", "granularities"]
GRANULARITIES = ("per_tensor", "per_channel", "blockwise")
ALIGN = 16
BLOCK = 128


def parse_pos_int(text):
    text = text.strip()
    if not text.isdigit():  # rejects '', '-1', '1.5', '1e3', '+3'
        return None
    value = int(text)
    return value if value > 0 else None


def main(argv):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llm_shapes.csv")
    min_distinct = 100
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--min-distinct" and args:
            min_distinct = int(args.pop(0))
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            path = a

    errors = []
    with open(path, newline="") as f:
        numbered = [(i, line) for i, line in enumerate(f, 1)
                    if line.strip() and not line.lstrip().startswith("#")]
    if not numbered:
        print(f"{path}: no header row", file=sys.stderr)
        return 1

    reader = csv.reader([line for _, line in numbered])
    header = [h.strip() for h in next(reader)]
    missing = [c for c in COLUMNS if c not in header]
    extra = [c for c in header if c not in COLUMNS]
    if missing:
        errors.append(f"line {numbered[0][0]}: missing columns: {','.join(missing)}")
    if extra:
        errors.append(f"line {numbered[0][0]}: unknown columns: {','.join(extra)}")
    if missing:
        for e in errors:
            print("ERROR", e, file=sys.stderr)
        return 1
    col = {c: header.index(c) for c in COLUMNS}

    seen = {}
    rows = 0
    problems = 0
    triples = set()
    triples_by_gran = defaultdict(set)
    rows_by_model = Counter()
    for (lineno, _), fields in zip(numbered[1:], reader):
        where = f"line {lineno}"
        if len(fields) != len(header):
            errors.append(f"{where}: expected {len(header)} fields, got {len(fields)}")
            continue
        rec = {c: fields[col[c]].strip() for c in COLUMNS}
        for c in ("model", "layer", "m", "granularities"):
            if not rec[c]:
                errors.append(f"{where}: empty {c}")
        rows += 1
        key = (rec["model"], rec["layer"])
        if key in seen:
            errors.append(f"{where}: duplicate (model, layer) {key}, first at line {seen[key]}")
        else:
            seen[key] = lineno
        rows_by_model[rec["model"]] += 1

        n, k = parse_pos_int(rec["n"]), parse_pos_int(rec["k"])
        if n is None:
            errors.append(f"{where}: n={rec['n']!r} is not a positive integer")
        if k is None:
            errors.append(f"{where}: k={rec['k']!r} is not a positive integer")
        for name, v in (("n", n), ("k", k)):
            if v is not None and v % ALIGN:
                errors.append(f"{where}: {name}={v} is not a multiple of {ALIGN}")

        ms = []
        for tok in rec["m"].split(";"):
            v = parse_pos_int(tok)
            if v is None:
                errors.append(f"{where}: m value {tok!r} is not a positive integer")
            else:
                ms.append(v)
        dup_m = [v for v, c in Counter(ms).items() if c > 1]
        if dup_m:
            errors.append(f"{where}: repeated m values {dup_m}")

        grans = [g.strip() for g in rec["granularities"].split(";")]
        for g in grans:
            if g not in GRANULARITIES:
                errors.append(f"{where}: unknown granularity {g!r}")
        if len(set(grans)) != len(grans):
            errors.append(f"{where}: repeated granularity")
        if "blockwise" in grans and n is not None and k is not None and (n % BLOCK or k % BLOCK):
            errors.append(f"{where}: blockwise listed but n={n}, k={k} not both multiples of {BLOCK}")

        if n is None or k is None:
            continue
        for m in ms:
            problems += 1
            triples.add((m, n, k))
            for g in grans:
                if g in GRANULARITIES:
                    triples_by_gran[g].add((m, n, k))

    if len(triples) < min_distinct:
        errors.append(f"only {len(triples)} distinct (m,n,k) problems, need >= {min_distinct}")

    nk = {(n, k) for _, n, k in triples}
    print(f"file: {path}")
    print(f"rows (model, layer): {rows}")
    print(f"models: {len(rows_by_model)} ({', '.join(f'{m}={c}' for m, c in rows_by_model.items())})")
    print(f"expanded problems (rows x m): {problems}")
    print(f"distinct (n,k) weight shapes: {len(nk)}")
    print(f"distinct (m,n,k) problems: {len(triples)}")
    for g in GRANULARITIES:
        print(f"  {g}: {len(triples_by_gran[g])} distinct (m,n,k)")
    if errors:
        for e in errors:
            print("ERROR", e, file=sys.stderr)
        print(f"FAIL: {len(errors)} error(s)")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
