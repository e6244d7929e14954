# SPDX-License-Identifier: MIT
"""The ops' schemas, fake kernels and the checks both the fake and the eager call run.

C++ (python/csrc) implements two low-level ops on tensors already in fp8gemm's layouts:

    fp8gemm::mm(a [M, K], b [N, K], scale_a, scale_b, recipe, bias fp32?, out_dtype, out_scale?,
                activation, fast_accum, want_amax) -> (out [M, N], amax)
    fp8gemm::grouped_mm(a, b [G, N, K], scale_a, scale_b, offs?, masked_m?, recipe, bias fp32?,
                        out_dtype, expected_m) -> out

The public functions in fp8gemm/__init__.py take torch's argument forms and convert.
"""
from __future__ import annotations

import torch

RECIPES = ("tensor", "row", "block", "mx32")
ACTIVATIONS = (None, "gelu_tanh", "gelu_erf")

OCP = (torch.float8_e4m3fn, torch.float8_e5m2)
FNUZ = (torch.float8_e4m3fnuz, torch.float8_e5m2fnuz)
FP8 = OCP + FNUZ
E4M3 = (torch.float8_e4m3fn, torch.float8_e4m3fnuz)
WIDE_OUT = (torch.bfloat16, torch.float16, torch.float32)

_lib = torch.library.Library("fp8gemm", "DEF")
_lib.define(
    "mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, int recipe, Tensor? bias, "
    "ScalarType out_dtype, float? out_scale, int activation, bool fast_accum, bool want_amax) "
    "-> (Tensor, Tensor)"
)
_lib.define(
    "grouped_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? offs, "
    "Tensor? masked_m, int recipe, Tensor? bias, ScalarType out_dtype, int expected_m) -> Tensor"
)
_lib.define(
    "_quantize_reference(Tensor x, ScalarType dtype, int recipe, bool weight) -> (Tensor, Tensor)"
)


def hip_backend(device: int = 0) -> str:
    """The HIP library for a ROCm GPU: "hip_gfx950" (OCP formats) or "hip_gfx942" (FNUZ); "" when
    no GPU is visible or its architecture has no library."""
    try:
        arch = torch.cuda.get_device_properties(device).gcnArchName.split(":")[0]
    except (RuntimeError, AssertionError, AttributeError):
        return ""
    return f"hip_{arch}" if arch in ("gfx942", "gfx950") else ""


def column_major(s: torch.Tensor) -> bool:
    """A 2-D scale tensor stored column-major, (M, cols) with strides (1, >= M): how the C++ op
    takes block A scales besides row-major (ops.cpp, block_scale_ld)."""
    return s.dim() == 2 and s.shape[1] > 1 and s.stride(0) == 1 and s.stride(1) >= s.shape[0]


def backend_of(t: torch.Tensor) -> str:
    """Which library serves a tensor: "cpu" (the emulator), "cuda" (sm_90a), "hip_gfx950" or
    "hip_gfx942" (CDNA4 / CDNA3; "hip" for another ROCm GPU, which has none)."""
    if t.device.type == "cpu":
        return "cpu"
    if t.device.type == "cuda":
        if torch.version.hip:
            return hip_backend(t.device.index or 0) or "hip"
        return "cuda"
    return t.device.type


def compiled(backend: str, ea, eb, recipe: str, out_dtype, activation) -> bool:
    """The kernels the prebuilt libraries carry (python/csrc/kernels.hpp, kernel_compiled)."""
    fnuz = ea in FNUZ
    if (eb in FNUZ) != fnuz:
        return False
    if backend in ("cuda", "hip_gfx950") and fnuz:  # OCP targets
        return False
    if backend == "hip_gfx942" and not fnuz:  # FNUZ target
        return False
    mx = backend in ("cpu", "hip_gfx950") and not fnuz
    wide = out_dtype in WIDE_OUT
    if ea in E4M3 and eb in E4M3:
        recipe_ok = recipe != "mx32" or mx
        return recipe_ok and (wide or (out_dtype == ea and activation is None))
    return recipe in ("tensor", "row") and wide and activation is None


def grouped_compiled(backend: str, ea, eb, recipe: str, out_dtype) -> bool:
    return ea in E4M3 and eb in E4M3 and out_dtype in WIDE_OUT and recipe != "mx32" and compiled(
        backend, ea, eb, recipe, out_dtype, None)


def _value_error(msg: str):
    raise ValueError("fp8gemm: invalid argument: " + msg)


def _not_implemented(msg: str):
    raise NotImplementedError("fp8gemm: unsupported: " + msg)


def _scale_dtype_ok(s: torch.Tensor, recipe: str) -> bool:
    if recipe == "mx32":  # e8m0 reaches the op as uint8 bits (torch 2.10's stable ABI lacks it)
        return s.dtype == torch.uint8
    return s.dtype == torch.float32


def check_mm(a, b, scale_a, scale_b, recipe, bias, out_dtype, out_scale, activation):
    """Data-independent checks of the low-level mm op (run by the fake kernel and before eager
    calls), each a ValueError / NotImplementedError with the message the C++ side would give."""
    if recipe not in RECIPES:
        _value_error(f"recipe {recipe!r} is not one of {RECIPES}")
    if activation not in ACTIVATIONS:
        _value_error(f"activation must be None, 'gelu_tanh' or 'gelu_erf', got {activation!r}")
    if a.dim() != 2 or b.dim() != 2:
        _value_error(f"a and b must be 2-D, got {a.dim()}-D and {b.dim()}-D")
    if a.dtype not in FP8 or b.dtype not in FP8:
        _value_error(f"a and b must be float8 tensors, got {a.dtype} and {b.dtype}")
    if out_dtype not in WIDE_OUT + FP8:
        _value_error(f"out_dtype must be bfloat16, float16, float32 or a float8 type, got {out_dtype}")
    if (a.dtype in FNUZ) != (b.dtype in FNUZ):
        _value_error(f"a ({a.dtype}) and b ({b.dtype}) mix OCP and FNUZ encodings")
    if out_dtype in FP8 and out_scale is None:
        _value_error("fp8 output needs an output scale")
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        if not _scale_dtype_ok(s, recipe):
            want = "uint8 (e8m0 bits)" if recipe == "mx32" else "float32"
            _value_error(f"{name} must be {want} for {recipe} scales, got {s.dtype}")
    if bias is not None and bias.dtype != torch.float32:
        _value_error(f"bias must reach the op as float32, got {bias.dtype}")
    backend = backend_of(a)
    if not compiled(backend, a.dtype, b.dtype, recipe, out_dtype, activation):
        _not_implemented(
            f"fp8gemm's {backend} library has no kernel for {a.dtype} x {b.dtype}, {recipe} "
            f"scales, {out_dtype} out, activation {activation} (compiled: both operands e4m3 "
            "with tensor/row/block scales (mx32 on gfx950 and the CPU), 16/32-bit out with any "
            "activation or fp8 out of A's type; mixed or e5m2 pairs with tensor/row scales, "
            "16/32-bit out, no activation)")


@torch.library.register_fake("fp8gemm::mm")
def _mm_fake(a, b, scale_a, scale_b, recipe, bias, out_dtype, out_scale, activation, fast_accum,
             want_amax):
    check_mm(a, b, scale_a, scale_b, RECIPES[recipe] if 0 <= recipe < 4 else recipe, bias,
             out_dtype, out_scale, ACTIVATIONS[activation] if 0 <= activation < 3 else activation)
    out = a.new_empty((a.shape[0], b.shape[0]), dtype=out_dtype)
    amax = a.new_empty((), dtype=torch.float32) if want_amax else a.new_empty((0,),
                                                                              dtype=torch.float32)
    return out, amax


def check_grouped(a, b, scale_a, scale_b, offs, masked_m, recipe, out_dtype):
    if recipe not in RECIPES:
        _value_error(f"recipe {recipe!r} is not one of {RECIPES}")
    if (offs is None) == (masked_m is None):
        _value_error("give exactly one of offs (contiguous groups) and masked_m (masked groups)")
    if a.dtype not in FP8 or b.dtype not in FP8:
        _value_error(f"a and b must be float8 tensors, got {a.dtype} and {b.dtype}")
    if b.dim() != 3:
        _value_error(f"b must reach the op as (G, N, K), got {b.dim()}-D")
    if (a.dtype in FNUZ) != (b.dtype in FNUZ):
        _value_error(f"a ({a.dtype}) and b ({b.dtype}) mix OCP and FNUZ encodings")
    if a.shape[-1] != b.shape[-1]:
        _value_error(f"a's K ({a.shape[-1]}) and b's K ({b.shape[-1]}) differ")
    counts = offs if offs is not None else masked_m
    if counts.dtype != torch.int32 or counts.dim() != 1:
        _value_error(f"{'offs' if offs is not None else 'masked_m'} must be a 1-D int32 tensor, "
                     f"got {counts.dim()}-D {counts.dtype}")
    if out_dtype not in WIDE_OUT + FP8:
        _value_error(f"out_dtype must be bfloat16, float16, float32 or a float8 type, got "
                     f"{out_dtype}")
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        if not _scale_dtype_ok(s, recipe):
            want = "uint8 (e8m0 bits)" if recipe == "mx32" else "float32"
            _value_error(f"{name} must be {want} for {recipe} scales, got {s.dtype}")
    backend = backend_of(a)
    if not grouped_compiled(backend, a.dtype, b.dtype, recipe, out_dtype):
        _not_implemented(
            f"fp8gemm's {backend} library has no grouped kernel for {a.dtype} x {b.dtype}, "
            f"{recipe} scales, {out_dtype} out (compiled: both operands e4m3, tensor/row/block "
            "scales, bfloat16/float16/float32 out)")


@torch.library.register_fake("fp8gemm::grouped_mm")
def _grouped_fake(a, b, scale_a, scale_b, offs, masked_m, recipe, bias, out_dtype, expected_m):
    check_grouped(a, b, scale_a, scale_b, offs, masked_m,
                  RECIPES[recipe] if 0 <= recipe < 4 else recipe, out_dtype)
    if masked_m is not None:
        return a.new_empty((a.shape[0], a.shape[1], b.shape[1]), dtype=out_dtype)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


@torch.library.register_fake("fp8gemm::_quantize_reference")
def _quantize_reference_fake(x, dtype, recipe, weight):
    rows, k = x.shape
    if recipe == 0:
        shape = (1, 1)
    elif recipe == 1:
        shape = (rows, 1)
    else:
        block_r, block_k = (128 if weight else 1, 128) if recipe == 2 else (1, 32)
        shape = (-(-rows // block_r), -(-k // block_k))
    sdt = torch.uint8 if recipe == 3 else torch.float32
    return x.new_empty((rows, k), dtype=dtype), x.new_empty(shape, dtype=sdt)
