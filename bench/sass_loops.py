#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The K loops of WGMMA kernels in a `cuobjdump -sass` listing, with their instruction mix.

A K loop here is the body of a backward branch that holds QGMMA and no other such body (the
innermost loops over k-blocks; the pipelined loops unroll two k-blocks per trip): the persistent
tile loop around it, and the jumps back from out-of-line blocks (an mbarrier wait's retry placed
after the kernel's EXIT) whose span reaches an EXIT or RET, are not K loops. For every kernel
whose mangled name matches PATTERN it prints one summary line per loop (instructions, QGMMA,
FP32 math, shared-memory loads, uniform-datapath instructions, barriers) and, with --bodies, the
loop's instructions.
cuobjdump comes from scripts/install_deps.sh (build/deps/cuda-tools/nvidia/cu13/bin), so this runs
here on any binary built with nvcc; no GPU needed.

  cuobjdump -sass BINARY > b.sass
  python3 bench/sass_loops.py b.sass 'WgmmaTilePolicyILi128ELi256E' [--bodies]
"""
import argparse
import re
import sys
from collections import Counter

FUNCTION = re.compile(r"Function : (\S+)")
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+([^;]*;)")
BRANCH_TARGET = re.compile(r"\bBRA\b[^;]*?0x([0-9a-f]+)")


def kernels(lines):
    """(mangled name, [(address, instruction text)]) per function of the listing."""
    current = None
    for line in lines:
        m = FUNCTION.search(line)
        if m:
            if current:
                yield current
            current = (m.group(1), [])
            continue
        m = INSTRUCTION.search(line)
        if current and m:
            current[1].append((int(m.group(1), 16), m.group(2).strip()))
    if current:
        yield current


def opcode(text):
    """The opcode of an instruction, without its predicate and modifiers (FFMA.FTZ -> FFMA)."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def mix(body):
    ops = Counter(opcode(t) for _, t in body)
    return {
        "instr": len(body),
        "QGMMA": ops["QGMMA"],
        "FP32": ops["FFMA"] + ops["FADD"] + ops["FMUL"],
        "LDS": ops["LDS"],
        "uniform": sum(n for op, n in ops.items() if op.startswith("U")),
        "barrier": sum(n for op, n in ops.items() if op.startswith(("SYNCS", "BAR", "WARPSYNC"))),
    }


def k_loops(code):
    """The K loops' bodies (the module docstring), in address order."""
    index = {a: i for i, (a, _) in enumerate(code)}
    spans = []  # [first, last] instruction indices of backward branches' bodies
    for i, (a, text) in enumerate(code):
        m = BRANCH_TARGET.search(text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target < a and target in index:
            body = [opcode(t) for _, t in code[index[target]:i + 1]]
            if "QGMMA" in body and "EXIT" not in body and "RET" not in body:
                spans.append((index[target], i))
    for first, last in spans:
        inner = any(f >= first and l <= last and (f, l) != (first, last) for f, l in spans)
        if not inner:
            yield code[first:last + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass", help="cuobjdump -sass output")
    ap.add_argument("pattern", help="regex over the kernels' mangled names")
    ap.add_argument("--bodies", action="store_true", help="print each loop's instructions")
    a = ap.parse_args()
    pattern = re.compile(a.pattern)
    found = 0
    with open(a.sass, errors="replace") as f:
        for name, code in kernels(f):
            if not pattern.search(name):
                continue
            for body in k_loops(code):
                found += 1
                m = mix(body)
                print("== %s\n   %s" % (name, "  ".join("%s %d" % kv for kv in m.items())))
                if a.bodies:
                    for addr, text in body:
                        print("   %05x  %s" % (addr, text))
    if not found:
        print("no K loop in a kernel matching %r" % a.pattern, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
