# SPDX-License-Identifier: MIT
"""Which kernel cuBLASLt runs for torch._scaled_mm, shape by shape (torch.profiler's CUDA kernel
names: cuBLASLt's nvjet / xmma names carry its tile, cluster and schedule), to read what tile the
vendor library uses where ours are slow (the selection issue's M = 129-512 rows).

    python bench/lt_kernels.py --out lt_kernels.json [--m 96,128,200,256] [--nk 28672x4096,...]

Tensor-wise and row-wise scales, bf16 out, b column-major (a weight's .t()), as
fp8gemm.scaled_mm's benchmark calls it. Prints one line per (mode, shape).
"""
from __future__ import annotations

import argparse
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def kernels_of(fn) -> list[str]:
    """The names of the CUDA kernels one call of fn launches (after a warm-up call)."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--m", default="64,96,128,160,192,200,256,320,384,512")
    ap.add_argument("--nk", default="28672x4096,24576x1536,10240x8192,4096x4096,7168x2048,576x7168")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("lt_kernels.py: no CUDA device", file=sys.stderr)
        return 2
    dev = torch.device("cuda")
    rows = []
    for nk in args.nk.split(","):
        n, k = (int(v) for v in nk.split("x"))
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn)
        for m in (int(v) for v in args.m.split(",")):
            a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
            for mode in ("tensorwise", "rowwise"):
                if mode == "tensorwise":
                    sa = torch.tensor(0.5, device=dev)
                    sb = torch.tensor(0.25, device=dev)
                else:
                    sa = torch.full((m, 1), 0.5, device=dev)
                    sb = torch.full((1, n), 0.25, device=dev)
                names = kernels_of(lambda: torch._scaled_mm(a, b.t(), sa, sb,
                                                            out_dtype=torch.bfloat16))
                rows.append({"mode": mode, "m": m, "n": n, "k": k, "kernels": names})
                print(f"{mode:10s} {m:5d} x {n:5d} x {k:5d}: {' | '.join(names)}", flush=True)
    with open(args.out, "w") as f:
        json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
                   "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
