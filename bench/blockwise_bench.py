# SPDX-License-Identifier: MIT
"""Blockwise FP8 (1x128 activations, 128x128 weights) on one GPU, in one process, on the same bytes:
fp8gemm.scaled_mm, torch._scaled_mm (cuBLASLt) and, when it imports, DeepGEMM's fp8_gemm_nt; plus
both libraries' tensor-wise kernels on the same shapes (how much the block scales cost each).

    python bench/blockwise_bench.py --out blockwise.json [--shapes issue|llm|both] [--grouped]

Shapes: the blockwise issue's four (4096x7168x16384, 4096x4096x7168, 8192^3, 2048x28672x8192) and,
with --shapes llm, the blockwise rows of bench/shapes/llm_shapes.csv. Method, per shape: inputs
quantized once from one random bf16 set and rotated over >= 200 MB of copies; each op captured in
a CUDA graph of `inner` back-to-back calls over the rotated sets; all graphs replayed for
--heat seconds (the GPU reaches its power cap), then replayed in turn (ours, cuBLASLt, DeepGEMM,
...) `reps` times, each replay timed with CUDA events; a call's time is the median replay / inner.
The SM clock is sampled (nvidia-smi) right after each shape's timing. Each blockwise output is
checked against an FP64 reference on a sample of C before timing (a disagreement is recorded, not
fatal). --grouped then runs the grouped GEMM issue's six DeepGEMM cases (contiguous, masked) on
the same bytes. Scales are dequantization factors (x = q * s) in the layouts each library takes:
A's (M, K/128) column-major (torch's; DeepGEMM's TMA-aligned layout when M % 4 == 0, so DeepGEMM
copies nothing), B's (K/128, N/128) as the .t() of a row-major (N/128, K/128).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from torch_ops_bench import environment, time_graphs  # noqa: E402 (bench/ is no package)

import fp8gemm  # noqa: E402

try:
    import deep_gemm  # noqa: E402
except ImportError as e:  # a baseline when present
    deep_gemm = None
    DEEP_GEMM_ERROR = str(e)
else:
    DEEP_GEMM_ERROR = ""

E4 = torch.float8_e4m3fn
ROOT = Path(__file__).resolve().parents[1]
ISSUE_SHAPES = [(4096, 7168, 16384), (4096, 4096, 7168), (8192, 8192, 8192), (2048, 28672, 8192)]


def llm_shapes(path):
    rows = [r for r in open(path) if not r.startswith("#")]
    out = []
    for r in csv.DictReader(rows):
        if "blockwise" in r["granularities"].split(";"):
            out += [(int(m), int(r["n"]), int(r["k"])) for m in r["m"].split(";")]
    return sorted(set(out))


def quantize_blocks(x, rows):
    """x (R, C) -> fp8 and dequant scales over blocks of `rows` x 128 (amax / 448; amax 0 -> 1).
    R % rows == 0 and C % 128 == 0: the shape set has blockwise only where N and K are multiples
    of 128."""
    r, c = x.shape
    xb = x.float().reshape(r // rows, rows, c // 128, 128)
    amax = xb.abs().amax(dim=(1, 3))
    s = torch.where(amax > 0, amax / 448.0, torch.ones_like(amax))
    q = (xb / s[:, None, :, None]).to(E4).reshape(r, c)
    return q, s


def make_set(m, n, k):
    a, sa = quantize_blocks(torch.randn(m, k, device="cuda"), 1)    # sa (M, K/128)
    w, sw = quantize_blocks(torch.randn(n, k, device="cuda"), 128)  # sw (N/128, K/128)
    sa_cm = sa.t().contiguous().t()  # column-major (M, K/128)
    one = torch.ones((), device="cuda")
    return {"a": a, "w": w, "sa": sa_cm, "sa_rm": sa.contiguous(), "sw": sw.contiguous(), "one": one,
            "d": torch.empty(m, n, device="cuda", dtype=torch.bfloat16)}


def ops(sets):
    pick = lambda i: sets[i % len(sets)]  # noqa: E731
    out = {
        "fp8gemm_block": lambda i: fp8gemm.scaled_mm(
            pick(i)["a"], pick(i)["w"].t(), pick(i)["sa"], pick(i)["sw"].t(),
            out_dtype=torch.bfloat16),
        "cublaslt_block": lambda i: torch._scaled_mm(
            pick(i)["a"], pick(i)["w"].t(), pick(i)["sa"], pick(i)["sw"].t(),
            out_dtype=torch.bfloat16),
        # the same with A's scales row-major: the consumers load them (fp8gemm_block's
        # column-major ones go through the scale ring, docs/performance.md#sm90-scale-ring)
        "fp8gemm_rowscales": lambda i: fp8gemm.scaled_mm(
            pick(i)["a"], pick(i)["w"].t(), pick(i)["sa_rm"], pick(i)["sw"].t(),
            out_dtype=torch.bfloat16),
        "fp8gemm_tensor": lambda i: fp8gemm.scaled_mm(
            pick(i)["a"], pick(i)["w"].t(), pick(i)["one"], pick(i)["one"],
            out_dtype=torch.bfloat16),
        "cublaslt_tensor": lambda i: torch._scaled_mm(
            pick(i)["a"], pick(i)["w"].t(), pick(i)["one"], pick(i)["one"],
            out_dtype=torch.bfloat16),
    }
    if deep_gemm is not None:
        def dg(i):
            s = pick(i)
            deep_gemm.fp8_gemm_nt((s["a"], s["sa"]), (s["w"], s["sw"]), s["d"],
                                  disable_ue8m0_cast=True)
            return s["d"]
        out["deepgemm_block"] = dg
    return out


def runnable(fns):
    """fns without the ops that refuse the shape (cuBLASLt has no blockwise algorithm for some),
    {name: the refusal's first line}, and {name: its output on set 0, as float}."""
    ok, refused, outs = {}, {}, {}
    for name, fn in fns.items():
        try:
            outs[name] = fn(0).float()  # a copy: DeepGEMM's output buffer is reused by later calls
            ok[name] = fn
        except Exception as e:  # noqa: BLE001 (a library refusing a shape is a result)
            refused[name] = (str(e).splitlines() or [repr(e)])[0]
    return ok, refused, outs


def check(outs, s, samples=64):
    """{name: whether its blockwise output agrees with an FP64 reference}, over `samples` rows and
    `4 * samples` columns spread over C (the reference from set s's quantized bytes and scales,
    x = q * s per block): within 2^-6 of the largest reference value, bf16 rounding and the
    summation order apart. Against FP64, not against cuBLASLt: cuBLASLt's blockwise output was
    wrong at K / 128 = 5 and 6 (bench/NOTES.md, thirty-sixth session)."""
    m, k = s["a"].shape
    n = s["w"].shape[0]
    dev = s["a"].device
    rows = torch.linspace(0, m - 1, min(m, samples), device=dev).long().unique()
    cols = torch.linspace(0, n - 1, min(n, 4 * samples), device=dev).long().unique()
    a = s["a"][rows].double() * s["sa_rm"][rows].double().repeat_interleave(128, 1)[:, :k]
    w = s["w"][cols].double() * s["sw"][cols // 128].double().repeat_interleave(128, 1)[:, :k]
    ref = a @ w.t()
    bound = 2 ** -6 * ref.abs().max().item()
    return {name: (out[rows][:, cols].double() - ref).abs().max().item() <= bound
            for name, out in outs.items() if name.endswith(("_block", "_rowscales"))}


# The grouped GEMM issue's DeepGEMM cases: (name, groups, rows per group, N, K, mode). Contiguous:
# every group's rows (a multiple of 128: DeepGEMM's contiguous layout needs it; fp8gemm does not)
# one after another; masked: capacity = rows, every group full.
GROUPED_CASES = [
    ("contiguous_4x8192_n4096_k7168", 4, 8192, 4096, 7168, "contiguous"),
    ("contiguous_4x8192_n7168_k2048", 4, 8192, 7168, 2048, "contiguous"),
    ("contiguous_8x4096_n4096_k7168", 8, 4096, 4096, 7168, "contiguous"),
    ("masked_1x1024_n4096_k7168", 1, 1024, 4096, 7168, "masked"),
    ("masked_4x256_n4096_k7168", 4, 256, 4096, 7168, "masked"),
    ("masked_4x256_n7168_k2048", 4, 256, 7168, 2048, "masked"),
]


def grouped_set(groups, rows, n, k, mode):
    """One set of a grouped case in both libraries' forms (the same bytes and scale values)."""
    a, sa = quantize_blocks(torch.randn(groups * rows, k, device="cuda"), 1)  # (G rows, K/128)
    w, sw = quantize_blocks(torch.randn(groups * n, k, device="cuda"), 128)   # (G N/128, K/128)
    w, sw = w.reshape(groups, n, k), sw.reshape(groups, n // 128, k // 128).contiguous()
    s = {"w": w, "sw": sw, "swT": sw.transpose(-2, -1)}
    if mode == "contiguous":
        s.update(a=a, sa=sa.contiguous(), sa_mn=sa.t().contiguous().t(),
                 offs=(torch.arange(1, groups + 1, device="cuda", dtype=torch.int32) * rows),
                 m_indices=torch.arange(groups, device="cuda", dtype=torch.int32)
                 .repeat_interleave(rows),
                 d=torch.empty(groups * rows, n, device="cuda", dtype=torch.bfloat16))
    else:
        a3, sa3 = a.reshape(groups, rows, k), sa.reshape(groups, rows, k // 128)
        s.update(a=a3, sa=sa3.contiguous(), sa_mn=sa3.transpose(1, 2).contiguous().transpose(1, 2),
                 masked_m=torch.full((groups,), rows, device="cuda", dtype=torch.int32),
                 d=torch.empty(groups, rows, n, device="cuda", dtype=torch.bfloat16))
    return s


def grouped_ops(sets, rows, mode):
    pick = lambda i: sets[i % len(sets)]  # noqa: E731
    if mode == "contiguous":  # A's scales column-major (the scale ring) and row-major
        out = {"fp8gemm_block": lambda i: fp8gemm.scaled_grouped_mm(
            pick(i)["a"], pick(i)["w"].transpose(-2, -1), pick(i)["sa_mn"], pick(i)["swT"],
            offs=pick(i)["offs"], expected_m=rows),
               "fp8gemm_rowscales": lambda i: fp8gemm.scaled_grouped_mm(
            pick(i)["a"], pick(i)["w"].transpose(-2, -1), pick(i)["sa"], pick(i)["swT"],
            offs=pick(i)["offs"], expected_m=rows)}
    else:
        out = {"fp8gemm_block": lambda i: fp8gemm.scaled_grouped_mm(
            pick(i)["a"], pick(i)["w"].transpose(-2, -1), pick(i)["sa"], pick(i)["swT"],
            masked_m=pick(i)["masked_m"], expected_m=rows)}
    if deep_gemm is not None:
        def dg(i):
            s = pick(i)
            if mode == "contiguous":
                deep_gemm.m_grouped_fp8_gemm_nt_contiguous(
                    (s["a"], s["sa_mn"]), (s["w"], s["sw"]), s["d"], s["m_indices"],
                    disable_ue8m0_cast=True)
            else:
                deep_gemm.m_grouped_fp8_gemm_nt_masked(
                    (s["a"], s["sa_mn"]), (s["w"], s["sw"]), s["d"], s["masked_m"], rows,
                    disable_ue8m0_cast=True)
            return s["d"]
        out["deepgemm_block"] = dg
    return out


def grouped_point(name, groups, rows, n, k, mode, inner, reps, heat):
    per_set = groups * (rows * k + n * k + 2 * rows * n)
    sets = [grouped_set(groups, rows, n, k, mode)
            for _ in range(max(2, min(16, math.ceil(200e6 / per_set))))]
    fns = grouped_ops(sets, rows, mode)
    row = {"case": name, "groups": groups, "rows_per_group": rows, "n": n, "k": k, "mode": mode}
    if "deepgemm_block" in fns:  # every row of every group is computed by both
        ours, theirs = fns["fp8gemm_block"](0).float(), fns["deepgemm_block"](0).float()
        row["max_abs_diff"] = (ours - theirs).abs().max().item()
        row["agrees"] = row["max_abs_diff"] <= 2 ** -6 * theirs.abs().max().item()
    t = time_point(fns, inner, reps, heat)
    row.update(us=t, smi_after=sm_clock(),
               tflops={k_: 2e-6 * groups * rows * n * k / us for k_, us in t.items()})
    if "deepgemm_block" in t:
        row["vs_deepgemm"] = t["deepgemm_block"] / t["fp8gemm_block"]
    if "fp8gemm_rowscales" in t:
        row["rowscales_over_ring"] = t["fp8gemm_rowscales"] / t["fp8gemm_block"]
    return row


def sm_clock():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return out
    except Exception:  # noqa: BLE001
        return "unavailable"


def time_point(fns, inner, reps, heat):
    """{name: median µs per call} (torch_ops_bench.time_graphs)."""
    return dict(zip(fns, time_graphs(list(fns.values()), inner, reps, heat)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--shapes", default="issue", choices=("issue", "llm", "both"))
    p.add_argument("--shape-file", default=str(ROOT / "bench/shapes/llm_shapes.csv"))
    p.add_argument("--inner", type=int, default=10)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--heat", type=float, default=1.5, help="seconds of replays before timing")
    p.add_argument("--time-limit", type=float, default=250)
    p.add_argument("--grouped", action="store_true",
                   help="then the grouped GEMM issue's DeepGEMM cases (contiguous and masked)")
    args = p.parse_args()
    t0 = time.time()
    points = (ISSUE_SHAPES if args.shapes in ("issue", "both") else []) + \
             (llm_shapes(args.shape_file) if args.shapes in ("llm", "both") else [])
    env = environment()
    env["deep_gemm"] = getattr(deep_gemm, "__version__", None) if deep_gemm else DEEP_GEMM_ERROR
    result = {"environment": env, "method": __doc__, "points": [], "complete": False}
    print("DeepGEMM:", env["deep_gemm"] or "absent", flush=True)
    for i, (m, n, k) in enumerate(points):
        if time.time() - t0 > args.time_limit:
            print(f"time limit: {i} of {len(points)} shapes", flush=True)
            break
        per_set = m * k + n * k + 2 * m * n
        sets = [make_set(m, n, k) for _ in range(max(2, min(16, math.ceil(200e6 / per_set))))]
        fns, refused, outs = runnable(ops(sets))
        agrees = check(outs, sets[0])
        del outs
        inner = args.inner if m * n * k < 2 ** 36 else 3
        t = time_point(fns, inner, args.reps, args.heat)
        row = {"m": m, "n": n, "k": k, "us": t, "smi_after": sm_clock(), "agrees": agrees,
               "refused": refused,
               "tflops": {name: 2e-6 * m * n * k / us for name, us in t.items()}}
        ours = t["fp8gemm_block"]
        if "cublaslt_block" in t:
            row["vs_cublaslt_block"] = t["cublaslt_block"] / ours
        row["block_over_tensor_ours"] = ours / t["fp8gemm_tensor"]
        if "fp8gemm_rowscales" in t:
            row["rowscales_over_ring"] = t["fp8gemm_rowscales"] / ours
        if "deepgemm_block" in t:
            row["vs_deepgemm"] = t["deepgemm_block"] / ours
            row["deepgemm_block_over_fp8gemm_tensor"] = t["deepgemm_block"] / t["fp8gemm_tensor"]
        result["points"].append(row)
        print(f"{m}x{n}x{k}: " + " ".join(f"{name} {us:.1f}" for name, us in t.items()) +
              (f" | vs cuBLASLt {row['vs_cublaslt_block']:.3f}" if "vs_cublaslt_block" in row
               else " | cuBLASLt refused") +
              (f" vs DeepGEMM {row['vs_deepgemm']:.3f}" if "vs_deepgemm" in row else "") +
              f" | block/tensor {row['block_over_tensor_ours']:.3f} | {row['smi_after']}", flush=True)
        Path(args.out).write_text(json.dumps(result, indent=1))
        del sets, fns
        torch.cuda.empty_cache()
    else:
        result["complete"] = True
    Path(args.out).write_text(json.dumps(result, indent=1))
    if args.grouped:
        result["grouped"] = []
        for case in GROUPED_CASES:
            if time.time() - t0 > args.time_limit:
                print(f"time limit: grouped case {case[0]} and later not run", flush=True)
                result["complete"] = False
                break
            try:
                row = grouped_point(*case, args.inner, args.reps, args.heat)
            except Exception as e:  # noqa: BLE001 (a library refusing a case is a result)
                row = {"case": case[0], "error": str(e).splitlines()[0] if str(e) else repr(e)}
            result["grouped"].append(row)
            print(json.dumps(row), flush=True)
            Path(args.out).write_text(json.dumps(result, indent=1))
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
