#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/sass_loops.py on a synthetic cuobjdump listing: the K loop (a backward branch's body
holding QGMMA) of the matching kernel only, its instruction mix (predicated and modified
opcodes counted by their base); skipped: a backward loop without QGMMA, a forward branch, the
persistent loop around the K loop, and an out-of-line retry block's jump back into the K loop
(its span reaches EXIT); exit 1 where no kernel matches.

usage: sass_loops_test.py PATH/TO/sass_loops.py
"""
import os
import subprocess
import sys
import tempfile

LISTING = """\
\t\tFunction : _ZN7fp8gemm4arch12kernel_entryILi128ELi256E
\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;            /* 0x00000a0000017a02 */
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;           /* 0x0 */
        /*0020*/              @P1 BRA 0x10 ;                         /* 0x0 */
        /*0030*/                   SYNCS.PHASECHK.TRANS64 P0, [UR8], R3 ; /* 0x0 */
        /*0040*/                   QGMMA.64x64x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ; /* 0x0 */
        /*0050*/                   UIADD3 UR4, UR4, 0x2, URZ ;       /* 0x0 */
        /*0060*/                   QGMMA.64x64x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ; /* 0x0 */
        /*0070*/                   LDS.64 R4, [R6+0x10] ;            /* 0x0 */
        /*0080*/                   FFMA.FTZ R8, R9, R4, R8 ;         /* 0x0 */
        /*0090*/               @!P2 FADD R10, R11, R10 ;             /* 0x0 */
        /*00a0*/                   ULEA UR5, UR6, UR7, 0x4 ;         /* 0x0 */
        /*00b0*/                   BAR.SYNC.DEFER_BLOCKING 0x1, 0x100 ; /* 0x0 */
        /*00c0*/              @P0 BRA 0x30 ;                         /* 0x0 */
        /*00d0*/                   STG.E [R12.64], R8 ;              /* 0x0 */
        /*00e0*/              @P3 BRA 0x10 ;                         /* 0x0 */
        /*00f0*/                   BRA 0x110 ;                       /* 0x0 */
        /*0100*/                   NOP ;                             /* 0x0 */
        /*0110*/                   EXIT ;                            /* 0x0 */
        /*0120*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR8], R3 ; /* 0x0 */
        /*0130*/              @!P0 BRA 0x120 ;                       /* 0x0 */
        /*0140*/                   BRA 0x50 ;                        /* 0x0 */
\t\tFunction : _ZN7fp8gemm4arch12kernel_entryILi128ELi128E
        /*0000*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ; /* 0x0 */
        /*0010*/              @P0 BRA 0x0 ;                          /* 0x0 */
"""


def run(script, *args):
    r = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def main():
    script = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "b.sass")
        with open(path, "w") as f:
            f.write(LISTING)
        rc, out, err = run(script, path, "ILi128ELi256E")
        lines = out.splitlines()
        if rc != 0:
            failures.append("exit %d for a matching kernel: %s" % (rc, err))
        heads = [l for l in lines if l.startswith("==")]
        if heads != ["== _ZN7fp8gemm4arch12kernel_entryILi128ELi256E"]:
            failures.append("expected one K loop of the 128 x 256 kernel only, got:\n" + out)
        want = "instr 10  QGMMA 2  FP32 2  LDS 1  uniform 2  barrier 2"
        if len(lines) < 2 or lines[1].strip() != want:
            failures.append("mix: expected %r, got %r" % (want, lines[1:2]))
        rc, out, _ = run(script, path, "ILi128ELi256E", "--bodies")
        body = [l.split(None, 1)[1] for l in out.splitlines()[2:]]
        if len(body) != 10 or not body[0].startswith("SYNCS") or not body[-1].startswith("@P0 BRA"):
            failures.append("bodies: expected the 10 instructions from 0x30 to the branch:\n" + out)
        rc, out, _ = run(script, path, "ILi64E")
        if rc != 1 or out:
            failures.append("no matching kernel: expected exit 1, no output: %d %r" % (rc, out))
    for f in failures:
        print("FAIL:", f)
    print("sass_loops_test: %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
