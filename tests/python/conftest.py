# SPDX-License-Identifier: MIT
"""Shared helpers of the Python tests: fresh random operands, the FP64 reference and the error
bound every comparison uses.

Error bound of one output (derived, not tuned): the kernel accumulates K products of exactly
representable values (fp8 x fp8 is exact in FP32) in FP32, in at most K + 4 rounding steps
(blockwise: 128-element partial sums, one scaled add per block; the dequant multiplies and the
bias add), so |acc - exact| <= (K + 4) u32 sum_k |a_k b_k| with u32 = 2^-24. The activation
(|GELU'| <= 1.13) scales that by at most 1.13 and adds its own FP32 evaluation error (a few ulp:
8 u32 |y|); the output conversion adds half an ulp of the output type, u_out |y| (bf16 2^-8,
fp16 2^-11, fp32 2^-24, e4m3 2^-4, e5m2 2^-3), plus half the smallest subnormal spacing for
fp8 outputs (which flush to 0 below it). On an NVIDIA GPU the accumulation term is Hopper's
tensor core's instead (accumulation_bound).
"""
from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import zlib

import pytest
import torch

# The tests assert the shipped selection; a table file the caller's environment names
# (FP8GEMM_TABLE, read at the library's first choice) must not change it.
os.environ.pop("FP8GEMM_TABLE", None)

import fp8gemm

U32 = 2.0 ** -24
HALF_ULP = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11, torch.float32: 2.0 ** -24,
            torch.float8_e4m3fn: 2.0 ** -4, torch.float8_e4m3fnuz: 2.0 ** -4,
            torch.float8_e5m2: 2.0 ** -3, torch.float8_e5m2fnuz: 2.0 ** -3}
# half the spacing of the smallest subnormals (e4m3fn 2^-9, e4m3fnuz 2^-10, e5m2 2^-16, fnuz 2^-17)
SUBNORMAL_HALF = {torch.float8_e4m3fn: 2.0 ** -10, torch.float8_e4m3fnuz: 2.0 ** -11,
                  torch.float8_e5m2: 2.0 ** -17, torch.float8_e5m2fnuz: 2.0 ** -18}
OCP = (torch.float8_e4m3fn, torch.float8_e5m2)
FNUZ = (torch.float8_e4m3fnuz, torch.float8_e5m2fnuz)

DEVICE = os.environ.get("FP8GEMM_TEST_DEVICE", "cpu")


def device():
    """The test device, with its index (torch.device("cuda") != a tensor's device "cuda:0")."""
    d = torch.device(DEVICE)
    if d.type != "cpu" and d.index is None:
        d = torch.device(d.type, torch.cuda.current_device())
    return d


def on_gpu() -> bool:
    return DEVICE != "cpu"


# One seed per session (FP8GEMM_TEST_SEED repeats a run), mixed with each test's name.
SESSION_SEED = int(os.environ.get("FP8GEMM_TEST_SEED", random.randrange(2**31)))


def pytest_report_header(config):
    return f"fp8gemm: FP8GEMM_TEST_SEED={SESSION_SEED} device={DEVICE} backends={fp8gemm.backends()}"


@pytest.fixture(autouse=True)
def _fresh_seed(request):
    """Fresh random inputs per test and run; FP8GEMM_TEST_SEED=<header's seed> repeats them."""
    torch.manual_seed(zlib.crc32(request.node.nodeid.encode()) ^ SESSION_SEED)
    yield


def randn(*shape, scale=1.0):
    """Normal values with a spread of magnitudes (rows and columns scaled differently), so
    per-row and per-block scales differ from one another."""
    x = torch.randn(*shape, dtype=torch.float32)
    row = torch.exp2(torch.randint(-3, 4, (shape[0], 1)).float())
    return (x * row * scale).to(device())


def expand(scales: torch.Tensor, rows: int, k: int, block_r: int, block_k: int) -> torch.Tensor:
    """Per-element FP64 scale of a (rows, K) operand from a row-major [ceil(rows / br), ceil(K /
    bk)] scale array."""
    s = scales.double().reshape(math.ceil(rows / block_r), math.ceil(k / block_k))
    return s.repeat_interleave(block_r, 0)[:rows].repeat_interleave(block_k, 1)[:, :k]


def dequant(q: torch.Tensor, scales: torch.Tensor, recipe: str, weight: bool) -> torch.Tensor:
    """FP64 q * s for a (rows, K) operand and its scales in fp8gemm's row-major layout."""
    rows, k = q.shape
    if recipe == "mx32":
        s = torch.exp2(scales.view(torch.uint8).double() - 127)
        return q.double() * expand(s, rows, k, 1, 32)
    block = {"tensor": (max(rows, 1), max(k, 1)), "row": (1, max(k, 1)),
             "block": (128 if weight else 1, 128)}[recipe]
    return q.double() * expand(scales, rows, k, *block)


def gelu64(x: torch.Tensor, kind: str | None) -> torch.Tensor:
    if kind is None:
        return x
    if kind == "gelu_erf":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gamma(n: int, u: float) -> float:
    return n * u / (1.0 - n * u)


def accumulation_bound(k: int, mag: torch.Tensor, fast_accum: bool = False) -> torch.Tensor:
    """|acc - exact| of the accumulation (mag = |A| |B|^T in FP64). The CPU emulator and CDNA's
    MFMA accumulate in FP32: (K + 4) u32 mag. Hopper's tensor core (the CUDA library's WGMMA
    kernels, which the op's AutoGemm picks) keeps fewer bits while it sums each 128-K block
    (tests/common/tolerance.hpp): per block of c products, c roundings plus two cuts per 32
    products at u = 2^-13, gamma(c + 2 ceil(c / 32), 2^-13) mag, c = min(K, 128) (c = K with
    fast accumulation: no promotion); then per block the FP32 promotion add and, blockwise, its two
    scale multiplies, plus the dequant and bias at 2^-24. (The portable mma.sync kernel rounds at
    2^-23: for it, should a shape reach it, this bound is loose, not wrong.)"""
    if on_gpu() and torch.version.hip is None:
        c = k if fast_accum else min(k, 128)
        blocks = (k + 127) // 128
        return (gamma(c + 2 * ((c + 31) // 32), 2.0 ** -13) + gamma(3 * blocks + 4, U32)) * mag
    return (k + 4) * U32 * mag


def bound(out_dtype, k: int, mag: torch.Tensor, y: torch.Tensor, activation, out_scale=1.0,
          fast_accum=False):
    """The per-element error bound of the module docstring (mag = |A| |B|^T in FP64)."""
    act_gain = 1.13 if activation else 1.0
    b = (act_gain * accumulation_bound(k, mag, fast_accum) + 8 * U32 * y.abs() +
         HALF_ULP[out_dtype] * y.abs())
    if out_dtype in SUBNORMAL_HALF:
        b = b + SUBNORMAL_HALF[out_dtype] * out_scale
    return b


def assert_within(got: torch.Tensor, want: torch.Tensor, tol: torch.Tensor, what: str):
    err = (got.double() - want).abs()
    bad = ~(err <= tol)  # NaN fails
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.numel()} elements outside the bound; first at flat "
            f"index {i}: got {got.flatten()[i].item()}, want {want.flatten()[i].item()}, "
            f"tolerance {tol.flatten()[i].item()}")


def run_python(code: str) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter (where a crash must not take pytest down)."""
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=600)


def requires_backend(name: str):
    return pytest.mark.skipif(name not in fp8gemm.backends(),
                              reason=f"the {name} library is not built")
