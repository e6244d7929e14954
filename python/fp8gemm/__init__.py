# SPDX-License-Identifier: MIT
"""fp8gemm's PyTorch ops: FP8 GEMMs that take torch._scaled_mm's argument forms.

    out = fp8gemm.scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16)
    out = fp8gemm.scaled_grouped_mm(a, b, scale_a, scale_b, offs=offs)
    q, s = fp8gemm.quantize(x, torch.float8_e4m3fn, "row")

Scales multiply: out = act((a * scale_a) @ (b * scale_b) + bias). The kernel is chosen per call
inside the op (AutoGemm), so CUDA graphs and torch.compile(fullgraph=True) see one op. CPU tensors
run the AMD kernels on fp8gemm's host emulator (slow, exact): what machines without a GPU and CI
use. See docs/python.md.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import torch

from . import _ops
from ._ops import backend_of

__all__ = ["scaled_mm", "scaled_grouped_mm", "quantize", "backends", "Fp8GemmError"]

_HERE = Path(__file__).resolve().parent
_LOADED: dict[str, str] = {}


def _where() -> Path:
    return Path(os.environ.get("FP8GEMM_TORCH_LIB_DIR", _HERE))


def _load_library(name: str) -> None:
    path = _where() / f"_C_{name}.so"
    if path.exists():
        torch.ops.load_library(str(path))
        _LOADED[name] = str(path)


def _load() -> None:
    """Loads each backend library present beside this file (FP8GEMM_TORCH_LIB_DIR overrides):
    the CPU one, and the CUDA one or, on ROCm, the HIP one for GPU 0's architecture. Both HIP
    libraries register for torch's "cuda" device, so a process holds one; finding the architecture
    initializes the GPU (here, at import, so that torch.compile never traces a load)."""
    _load_library("cpu")
    if not torch.version.hip:
        _load_library("cuda")
    elif torch.cuda.is_available():
        name = _ops.hip_backend(0)
        if name:
            _load_library(name)


_load()


def backends() -> dict[str, str]:
    """The backend libraries loaded: {"cpu": path, "cuda": path} or {"cpu": ..., "hip_gfx942":
    ...}."""
    return dict(_LOADED)


Fp8GemmError = RuntimeError  # GPU runtime failures; bad arguments are ValueError


def _call(op, check, *args):
    """Calls a C++ op. Its errors arrive as RuntimeError("... fp8gemm: <status code>: <why>"):
    "unsupported" becomes NotImplementedError, "GPU runtime error" stays RuntimeError, every
    other code (a bad argument) becomes ValueError, each with fp8gemm's message.

    check() runs the Python checks (_ops.check_mm / check_grouped, what the fake kernel runs)
    only once the op has refused: the C++ op checks the same things, so a call that passes it
    needs no second check (docs/python.md#errors), and a refusal still gets the Python message
    where the Python checks word it."""
    try:
        return op(*args)
    except RuntimeError as e:
        msg = str(e)
        at = msg.find("fp8gemm: ")
        if at < 0 or msg.startswith("fp8gemm: GPU runtime error:", at):
            raise
    check()  # outside the except clause: no chained traceback
    msg = msg[at:].strip()
    if msg.startswith("fp8gemm: unsupported:"):
        raise NotImplementedError(msg)
    raise ValueError(msg)


_MM = torch.ops.fp8gemm.mm.default  # the schemas are defined (_ops); the libraries add kernels
_GROUPED_MM = torch.ops.fp8gemm.grouped_mm.default


def _require_backend(t: torch.Tensor) -> None:
    # the common cases without building a torch.device (about 1 µs each): CPU, and CUDA builds
    # (torch.version.hip builds never load "cuda")
    if t.is_cpu and "cpu" in _LOADED or t.is_cuda and "cuda" in _LOADED:
        return
    name = backend_of(t)
    if name not in _LOADED:
        backend = "hip" if name.startswith("hip") else name
        raise NotImplementedError(
            f"fp8gemm: unsupported: no fp8gemm library for {t.device.type} tensors "
            f"({name}) is loaded (loaded: {sorted(_LOADED) or 'none'}; a process holds one HIP "
            f"library, for GPU 0's architecture); build it with "
            f"pip install . -Ccmake.define.FP8GEMM_TORCH_BACKENDS=\"cpu;{backend}\"")


def _numel_one(s: torch.Tensor) -> bool:
    return s.numel() == 1


def _ceil_div(a, b):
    return -(-a // b)


def _recipe_of(a, b, scale_a, scale_b) -> str:
    """torch._scaled_mm's forms: tensor-wise (numel 1 each), row-wise ((M, 1) and (1, N)),
    1x128 . 128x128 blocks ((M, ceil(K/128)) and (ceil(K/128), ceil(N/128))), MX-32 (e8m0)."""
    m, k = a.shape
    n = b.shape[1]
    if scale_a.dtype in (torch.float8_e8m0fnu, torch.uint8):
        kb = _ceil_div(k, 32)
        if tuple(scale_a.shape) != (m, kb) or tuple(scale_b.shape) != (kb, n):
            _ops._value_error(
                f"mx32 scales must be scale_a ({m}, {kb}) and scale_b ({kb}, {n}) (the "
                f"transpose of a row-major ({n}, {kb}), as b is of a ({n}, {k}) weight); got "
                f"{tuple(scale_a.shape)} and {tuple(scale_b.shape)}")
        return "mx32"
    if _numel_one(scale_a) and _numel_one(scale_b):
        return "tensor"
    if tuple(scale_a.shape) in ((m, 1), (m,)) and tuple(scale_b.shape) in ((1, n), (n,)):
        return "row"
    kb, nb = _ceil_div(k, 128), _ceil_div(n, 128)
    if tuple(scale_a.shape) == (m, kb) and tuple(scale_b.shape) == (kb, nb):
        return "block"
    _ops._value_error(
        f"cannot tell the scale recipe from scale_a {tuple(scale_a.shape)} and scale_b "
        f"{tuple(scale_b.shape)} for a ({m}, {k}) and b ({k}, {n}): tensor-wise takes one value "
        f"each, row-wise ({m}, 1) and (1, {n}), blockwise ({m}, {kb}) and ({kb}, {nb}), mx32 "
        "e8m0 scales")


def _b_as_nk(b: torch.Tensor) -> torch.Tensor:
    """b (K, N) as fp8gemm's (N, K), K contiguous: free for a column-major b (a (N, K) weight's
    .t()); a row-major b is copied once."""
    bt = b.t()
    return bt if bt.is_contiguous() else bt.contiguous()


def _out_scale(out_dtype, scale_result):
    """torch's scale_result multiplies before the fp8 conversion (q = fp8(y * scale_result));
    fp8gemm's epilogue divides by a dequant scale, so out_scale = 1 / scale_result."""
    if out_dtype not in _ops.FP8:
        if scale_result is not None:
            _ops._value_error("scale_result is only for fp8 outputs")
        return None
    if scale_result is None:
        return 1.0
    value = float(scale_result)  # a tensor: one device read (a graph break under torch.compile)
    if not math.isfinite(value) or value <= 0:
        _ops._value_error(f"scale_result must be positive and finite, got {value}")
    return 1.0 / value


def scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, use_fast_accum=False,
              *, activation=None, scale_result=None, return_amax=False):
    """act((a * scale_a) @ (b * scale_b) + bias) in out_dtype, as torch._scaled_mm computes it.

    a: (M, K) float8, row-major. b: (K, N) float8; column-major (a (N, K) weight's .t()) is free,
    row-major is copied first. Scales (torch's forms): tensor-wise one float32 each; row-wise
    (M, 1) and (1, N); blocks (M, ceil(K/128)) and (ceil(K/128), ceil(N/128)), A's scale in either
    memory order (column-major is read in place), B's the .t() of a row-major
    (ceil(N/128), ceil(K/128)); MX-32 float8_e8m0fnu
    (M, ceil(K/32)) and the .t() of a row-major (N, ceil(K/32)) (not on sm_90).
    bias: (N,) of any float dtype. activation: None, "gelu_tanh" or "gelu_erf".
    out_dtype fp8: q = fp8(y * scale_result) (scale_result 1 when None), computed as
    fp8(y / (1 / scale_result)): exact for a power of two, else it may land one fp8 code away.
    return_amax: also returns max |y| before the output conversion, a 0-d float32.
    use_fast_accum: sm_90 accumulates the whole K in the tensor cores where a fast kernel is
    compiled (see docs/python.md); elsewhere the promoted kernel runs.
    """
    _require_backend(a)
    if a.dim() != 2 or b.dim() != 2:
        _ops._value_error(f"a and b must be 2-D, got {a.dim()}-D and {b.dim()}-D")
    if a.shape[1] != b.shape[0]:
        _ops._value_error(f"a is ({a.shape[0]}, {a.shape[1]}) and b ({b.shape[0]}, {b.shape[1]}): "
                          "K differs")
    recipe = _recipe_of(a, b, scale_a, scale_b)
    a = a if a.is_contiguous() else a.contiguous()
    b_nk = _b_as_nk(b)
    # the op reads tensor and row scales by count (one, or M and N), whatever their shape
    sa, sb = (scale_a, scale_b) if recipe in ("tensor", "row") else (scale_a, scale_b.t())
    # block A scales column-major, as torch's blockwise _scaled_mm takes them, go in place
    if not (sa.is_contiguous() or (recipe == "block" and _ops.column_major(sa))):
        sa = sa.contiguous()
    sb = sb if sb.is_contiguous() else sb.contiguous()
    if recipe == "mx32":  # the op takes e8m0 as its uint8 bits
        sa, sb = sa.view(torch.uint8), sb.view(torch.uint8)
    bias32 = None
    if bias is not None:
        if bias.dim() != 1 or bias.shape[0] != b.shape[1]:
            _ops._value_error(f"bias must be ({b.shape[1]},), got {tuple(bias.shape)}")
        bias32 = bias.to(torch.float32).contiguous()
    out_scale = _out_scale(out_dtype, scale_result)

    def check():
        _ops.check_mm(a, b_nk, sa, sb, recipe, bias32, out_dtype, out_scale, activation)

    if activation not in _ops.ACTIVATIONS:
        check()
    out, amax = _call(_MM, check, a, b_nk, sa, sb, _ops.RECIPES.index(recipe), bias32, out_dtype,
                      out_scale, _ops.ACTIVATIONS.index(activation), bool(use_fast_accum),
                      bool(return_amax))
    return (out, amax) if return_amax else out


def scaled_grouped_mm(a, b, scale_a, scale_b, offs=None, bias=None, out_dtype=torch.bfloat16,
                      use_fast_accum=False, *, masked_m=None, expected_m=None):
    """One GEMM per group (mixture-of-experts), as torch._scaled_grouped_mm computes it.

    Contiguous (torch's 2d x 3d): a (M, K) holds the groups' rows one after another; offs (G,)
    int32 on a's device holds their inclusive cumulative ends (no alignment, empty groups
    allowed); b (G, K, N), each group column-major (the .transpose(-2, -1) of a (G, N, K)
    weight); out (M, N). Masked: a (G, capacity, K), masked_m (G,) int32 rows per group, out
    (G, capacity, N). Rows outside the groups are not written (out is torch.empty).
    Scales: row-wise (torch's): scale_a one per row of a ((M,) or (G, capacity)), scale_b (G, N);
    tensor-wise: scale_a one value or one per group, scale_b one per group; blocks: scale_a
    (M, ceil(K/128)), row- or column-major (or (G, capacity, ceil(K/128)), row-major), scale_b
    (G, ceil(K/128), ceil(N/128)), the per-group .transpose(-2, -1) of a row-major
    (G, ceil(N/128), ceil(K/128)).
    bias: (G, N). expected_m: rows per group the caller expects (picks the tile; default: the
    mean). Counts stay on the device: graph replays with new counts are correct. A bad count
    (decreasing offs, a group past a, masked_m above the capacity) computes nothing.
    use_fast_accum is accepted and ignored (the grouped kernels promote every 128 of K).
    """
    del use_fast_accum
    _require_backend(a)
    if b.dim() != 3:
        _ops._value_error(f"b must be (G, K, N), got {b.dim()}-D")
    groups, k, n = b.shape
    masked = masked_m is not None
    if masked == (offs is not None):
        _ops._value_error("give exactly one of offs (contiguous groups) and masked_m (masked)")
    if masked and (a.dim() != 3 or a.shape[0] != groups):
        _ops._value_error(f"masked groups take a as ({groups}, capacity, {k}), got "
                          f"{tuple(a.shape)}")
    if not masked and a.dim() != 2:
        _ops._value_error(f"contiguous groups take a as (M, {k}), got {tuple(a.shape)}")
    if a.shape[-1] != k:
        _ops._value_error(f"a's K ({a.shape[-1]}) and b's K ({k}) differ")
    rows = a.shape[0] * a.shape[1] if masked else a.shape[0]
    kb, nb = _ceil_div(k, 128), _ceil_div(n, 128)
    row_shapes = [(rows,)] + ([tuple(a.shape[:2])] if masked else [])
    block_shapes = [(rows, kb)] + ([tuple(a.shape[:2]) + (kb,)] if masked else [])
    sa_shape, sb_shape = tuple(scale_a.shape), tuple(scale_b.shape)
    # by shape, as torch's forms are (numel alone would mistake blocks for per-group scales)
    if scale_b.dtype != torch.float32 or scale_a.dtype != torch.float32:
        _ops._value_error(f"grouped scales must be float32, got {scale_a.dtype} and "
                          f"{scale_b.dtype}")
    if sb_shape == (groups,) and scale_a.dim() <= 1 and scale_a.numel() in (1, groups):
        recipe, sa, sb = "tensor", scale_a.reshape(-1), scale_b
    elif sb_shape == (groups, n) and sa_shape in row_shapes:
        recipe, sa, sb = "row", scale_a.reshape(-1), scale_b
    elif sb_shape == (groups, kb, nb) and sa_shape in block_shapes:
        recipe, sa, sb = "block", scale_a.reshape(rows, kb), scale_b.transpose(-2, -1)
    else:
        _ops._value_error(
            f"cannot tell the scale recipe from scale_a {sa_shape} and scale_b {sb_shape}: "
            f"row-wise takes scale_a {' or '.join(map(str, row_shapes))} and scale_b "
            f"({groups}, {n}); tensor-wise scale_a of one value or {groups} and scale_b "
            f"({groups},); blocks scale_a {' or '.join(map(str, block_shapes))} and scale_b "
            f"({groups}, {kb}, {nb})")
    # contiguous groups' block A scales column-major, as quantize writes them, go in place
    if not (sa.is_contiguous() or (recipe == "block" and not masked and _ops.column_major(sa))):
        sa = sa.contiguous()
    sb = sb if sb.is_contiguous() else sb.contiguous()
    b_nk = b.transpose(-2, -1)
    b_nk = b_nk if b_nk.is_contiguous() else b_nk.contiguous()
    a = a if a.is_contiguous() else a.contiguous()
    bias32 = None
    if bias is not None:
        if tuple(bias.shape) != (groups, n):
            _ops._value_error(f"bias must be ({groups}, {n}), got {tuple(bias.shape)}")
        bias32 = bias.to(torch.float32).contiguous()

    def check():
        _ops.check_grouped(a, b_nk, sa, sb, offs, masked_m, recipe, out_dtype)

    return _call(_GROUPED_MM, check, a, b_nk, sa, sb, offs, masked_m, _ops.RECIPES.index(recipe),
                 bias32, out_dtype, int(expected_m or 0))


_GRANULARITIES = ("tensor", "row", "1x128", "128x128", "mx32")


def quantize(x, dtype=torch.float8_e4m3fn, granularity="row"):
    """(q, scales) with x ~ q * scales, in the layouts scaled_mm takes.

    x: (R, K), any float dtype. s = amax / fmt_max per block (s = 1 where that is 0 or
    subnormal), q = fp8(x / s) rounded to nearest even, saturating; bit-identical to fp8gemm's
    quantizers (tested against them). Scales, by granularity:
      "tensor"   a 0-d float32
      "row"      (R, 1) float32: one per row (scale_a of a, or a weight's per-output-channel
                 scale: pass .t() for scale_b)
      "1x128"    (R, ceil(K/128)) float32, column-major (torch's scale_a layout)
      "128x128"  (ceil(R/128), ceil(K/128)) float32, row-major: for a (N, K) weight w, pass
                 b = q.t() and scale_b = scales.t()
      "mx32"     (R, ceil(K/32)) float8_e8m0fnu: 2^(floor(log2 amax) - emax) (pass .t() for b)
    Non-finite x gives NaN scales (no error is raised: that would need a device sync).
    """
    if granularity not in _GRANULARITIES:
        _ops._value_error(f"granularity must be one of {_GRANULARITIES}, got {granularity!r}")
    if dtype not in _ops.FP8:
        _ops._value_error(f"dtype must be a float8 type, got {dtype}")
    if x.dim() != 2:
        _ops._value_error(f"x must be 2-D (R, K), got {x.dim()}-D")
    x = x.to(torch.float32)
    rows, k = x.shape
    fmax = torch.finfo(dtype).max
    if x.numel() == 0:  # no values: every scale is 1 (amax 0), in the shapes below
        shape = {"tensor": (), "row": (rows, 1), "1x128": (rows, _ceil_div(k, 128)),
                 "128x128": (_ceil_div(rows, 128), _ceil_div(k, 128)),
                 "mx32": (rows, _ceil_div(k, 32))}[granularity]
        if granularity == "mx32":
            return x.to(dtype), torch.full(shape, 127, dtype=torch.uint8,
                                           device=x.device).view(torch.float8_e8m0fnu)
        return x.to(dtype), torch.ones(shape, device=x.device)
    if granularity == "mx32":
        return _quantize_mx(x, dtype, fmax)
    block_r, block_k = {"tensor": (max(rows, 1), max(k, 1)), "row": (1, max(k, 1)),
                        "1x128": (1, 128), "128x128": (128, 128)}[granularity]
    nr, nk = _ceil_div(rows, block_r), _ceil_div(k, block_k)
    # blocks as a view of x padded with zeros (no copy unless the blocks are ragged); the scales
    # broadcast over their blocks instead of being expanded to x's size
    blocks = torch.nn.functional.pad(x, (0, nk * block_k - k, 0, nr * block_r - rows))
    blocks = blocks.reshape(nr, block_r, nk, block_k)
    amax = blocks.abs().amax(dim=(1, 3))
    # a true division: torch's CUDA kernels multiply by the reciprocal of a Python-number divisor
    # (1 ulp off amax / fmt_max), so the divisor is a tensor, and the bits match the CPU's
    s = amax / torch.full_like(amax, fmax)
    # s = 1 where amax / fmt_max is 0 or subnormal; NaN (no error) where amax is not finite
    s = torch.where(s >= torch.finfo(torch.float32).tiny, s, torch.ones_like(s))
    s = torch.where(torch.isfinite(amax), s, torch.full_like(s, float("nan")))
    q = (blocks / s[:, None, :, None]).clamp(-fmax, fmax).to(dtype)
    q = q.reshape(nr * block_r, nk * block_k)[:rows, :k].contiguous()
    if granularity == "tensor":
        return q, s.reshape(())
    if granularity == "1x128":
        return q, s.t().contiguous().t()
    return q, s


def _quantize_mx(x, dtype, fmax):
    rows, k = x.shape
    nk = _ceil_div(k, 32)
    emax = math.floor(math.log2(fmax))
    blocks = torch.nn.functional.pad(x, (0, nk * 32 - k)).reshape(rows, nk, 32)
    amax = blocks.abs().amax(dim=2)
    _, exp = torch.frexp(amax)  # amax = m 2^exp, m in [0.5, 1): floor(log2 amax) = exp - 1
    e = torch.where(amax > 0, exp - 1 - emax, torch.zeros_like(exp)).clamp(-127, 127)
    bits = torch.where(torch.isfinite(amax), e + 127, torch.full_like(e, 255)).to(torch.uint8)
    # a block with Inf / NaN: its scale is NaN (e8m0 0xff), and so is every q in it, as the library
    scale = torch.where(torch.isfinite(amax), torch.exp2(e.to(torch.float32)),
                        torch.full_like(amax, float("nan")))
    q = (blocks / scale[:, :, None]).clamp(-fmax, fmax).to(dtype)
    q = q.reshape(rows, nk * 32)[:, :k].contiguous()
    return q, bits.view(torch.float8_e8m0fnu)
