# SPDX-License-Identifier: MIT
"""Measured tables read at run time (FP8GEMM_TABLE; include/fp8gemm/device/selection/table_file.hpp):
bench/make_table.py --csv writes the format the C++ parser reads, and a table file the ops cannot
read makes every call fail with the file, line and what is wrong (not a silent fall back)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import device, run_python

ROOT = Path(__file__).resolve().parents[2]
SWEEP = ROOT / "bench/results/h100/2026-12-07_47aee8e_tune_stream_k_per_tensor.json.gz"


def test_make_table_writes_the_run_time_format(tmp_path):
    out = tmp_path / "table.csv"
    r = subprocess.run([sys.executable, str(ROOT / "bench/make_table.py"), str(SWEEP), "--csv",
                        str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [x for x in out.read_text().splitlines() if x and not x.startswith("#")]
    assert lines[0] == "target,sm90"
    assert lines[1] == "sm_count,132"
    assert lines[2].startswith("provenance,NVIDIA H100 80GB HBM3, 132 SMs, 2026-12-07, commit 47aee8e")
    assert lines[3] == "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k"
    entries = [x.split(",") for x in lines[4:]]
    assert f"{len(entries)} entries for 132 SMs" in r.stdout
    assert len(entries) > 100
    for e in entries:
        assert len(e) == 9, e
        assert e[0] == "per_tensor" and e[1] == "promoted" and e[2] == "identity"
        n, k, lo, hi, split = (int(e[i]) for i in (3, 4, 5, 6, 8))
        assert n > 0 and k > 0 and 1 <= lo <= hi and split >= 1 and e[7].startswith("sm90_")


BAD_TABLE = """
import torch, fp8gemm
a = torch.randn(16, 128).to(torch.float8_e4m3fn).to("{dev}")
w = torch.randn(32, 128).to(torch.float8_e4m3fn).to("{dev}")
one = torch.ones((), device="{dev}")
try:
    fp8gemm.scaled_mm(a, w.t(), one, one)
    print("NO ERROR")
except (RuntimeError, ValueError) as e:
    msg = str(e)
    print(type(e).__name__, msg[msg.find("FP8GEMM_TABLE"):].splitlines()[0])
"""


def test_an_unreadable_table_file_fails_every_call_in_words(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("target,sm90\nsm_count,132\n"
                   "granularity,accumulation,epilogue,n,k,m_lo,m_hi,candidate,split_k\n"
                   "per_tensor,promoted,identity,32,128,1,16,sm90_wgmma_large\n")
    old = os.environ.get("FP8GEMM_TABLE")
    os.environ["FP8GEMM_TABLE"] = str(bad)
    try:
        r = run_python(BAD_TABLE.format(dev=str(device())))
    finally:
        if old is None:
            del os.environ["FP8GEMM_TABLE"]
        else:
            os.environ["FP8GEMM_TABLE"] = old
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.strip()
    assert out.startswith("ValueError FP8GEMM_TABLE: " + str(bad) + ":4: an entry has 9 fields"), out
