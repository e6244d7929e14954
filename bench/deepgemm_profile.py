# SPDX-License-Identifier: MIT
"""DeepGEMM's blockwise GEMM (fp8_gemm_nt, 1x128 activations, 128x128 weights) launched `--calls`
times back to back at one shape, for a profiler (scripts/h200_run.sh profile with
FP8GEMM_NCU_DEEPGEMM): the baseline's kernel under the same Nsight Compute sections as ours.

    python bench/deepgemm_profile.py 4096x7168x16384 [--calls 40]

Inputs as bench/blockwise_bench.py makes them (quantized from one random set); DeepGEMM's config
is its own heuristic's, printed with DG_PRINT_CONFIGS=1. DeepGEMM is a measurement baseline,
built on the device from .carry/deepgemm.tgz, never part of fp8gemm.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blockwise_bench import make_set  # noqa: E402 (bench/ is no package)

import deep_gemm  # noqa: E402  (required here: the script profiles nothing else)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", help="MxNxK")
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    m, n, k = (int(v) for v in args.shape.split("x"))
    s = make_set(m, n, k)
    for _ in range(args.calls):
        deep_gemm.fp8_gemm_nt((s["a"], s["sa"]), (s["w"], s["sw"]), s["d"], disable_ue8m0_cast=True)
    torch.cuda.synchronize()
    print(f"deepgemm {m}x{n}x{k}: {args.calls} calls")


if __name__ == "__main__":
    main()
