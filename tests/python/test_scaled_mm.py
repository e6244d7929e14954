# SPDX-License-Identifier: MIT
"""fp8gemm.scaled_mm against FP64 (every recipe, out dtype, B layout, OCP and FNUZ, activations,
bias, fp8 out and amax) and against torch._scaled_mm on the same bytes where torch has a kernel."""
from __future__ import annotations

import math

import pytest
import torch

import fp8gemm
from conftest import (FNUZ, OCP, accumulation_bound, assert_within, bound, dequant, device,
                      gelu64, on_gpu, randn)

# M = 1, odd sizes, K not a multiple of 128 (block) where the recipe allows it; N = 256: two
# 128-row blocks of B's scales, so a transposed B scale array cannot pass
SHAPES = [(1, 32, 128), (17, 48, 256), (64, 128, 160), (33, 80, 96), (20, 256, 384)]
WEIGHT_GRAN = {"tensor": "tensor", "row": "row", "block": "128x128", "mx32": "mx32"}
ACT_GRAN = {"tensor": "tensor", "row": "row", "block": "1x128", "mx32": "mx32"}


def families():
    fams = [OCP]
    if not on_gpu() or torch.version.hip:
        fams.append(FNUZ)
    return fams


def recipes_for(fam):
    rs = ["tensor", "row", "block"]
    if fam == OCP and not (on_gpu() and not torch.version.hip):
        rs.append("mx32")
    return rs


def make(m, n, k, ea, eb, recipe):
    """x (M, K), w (N, K) quantized as the user would: (qa, sa) and the weight (qw, sw)."""
    x, w = randn(m, k), randn(n, k, scale=0.5)
    qa, sa = fp8gemm.quantize(x, ea, ACT_GRAN[recipe])
    qw, sw = fp8gemm.quantize(w, eb, WEIGHT_GRAN[recipe])
    return qa, sa, qw, sw


def reference(qa, sa, qw, sw, recipe, bias=None, activation=None):
    """FP64: (pre-activation y, post-activation, |A| |B|^T) from the quantized bytes."""
    a = dequant(qa.cpu(), sa.cpu().contiguous() if recipe != "tensor" else sa.cpu(), recipe, False)
    b = dequant(qw.cpu(), sw.cpu(), recipe, True)
    y = a @ b.t()
    if bias is not None:
        y = y + bias.cpu().double()
    return y, gelu64(y, activation), a.abs() @ b.abs().t()


CASES = [(fam, recipe, shape) for fam in families() for recipe in recipes_for(fam)
         for shape in SHAPES]


@pytest.mark.parametrize("fam,recipe,shape", CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_against_fp64(fam, recipe, shape, out_dtype):
    m, n, k = shape
    qa, sa, qw, sw = make(m, n, k, fam[0], fam[0], recipe)
    out = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=out_dtype)
    assert out.shape == (m, n) and out.dtype == out_dtype and out.device == device()
    _, y, mag = reference(qa, sa, qw, sw, recipe)
    assert_within(out.cpu(), y, bound(out_dtype, k, mag, y, None), f"{recipe} {out_dtype}")


@pytest.mark.parametrize("fam", families(), ids=["ocp", "fnuz"][:len(families())])
@pytest.mark.parametrize("recipe", ["tensor", "row", "block"])
@pytest.mark.parametrize("activation", [None, "gelu_tanh", "gelu_erf"])
def test_bias_activation_amax_row_major_b(fam, recipe, activation):
    m, n, k = 19, 256, 256
    qa, sa, qw, sw = make(m, n, k, fam[0], fam[0], recipe)
    bias = randn(1, n).reshape(n).to(torch.bfloat16)
    b_row_major = qw.t().contiguous()  # (K, N), N contiguous: copied to (N, K) inside
    out, amax = fp8gemm.scaled_mm(qa, b_row_major, sa, sw.t(), bias=bias,
                                  out_dtype=torch.bfloat16, activation=activation,
                                  return_amax=True)
    _, y, mag = reference(qa, sa, qw, sw, recipe, bias=bias, activation=activation)
    tol = bound(torch.bfloat16, k, mag, y, activation)
    assert_within(out.cpu(), y, tol, f"{recipe} {activation}")
    # amax = max |y| before the bf16 conversion: within the largest pre-conversion bound
    assert amax.shape == () and amax.dtype == torch.float32
    pre_tol = (tol - 2.0 ** -8 * y.abs()).max()
    assert abs(amax.item() - y.abs().max().item()) <= pre_tol.item()


@pytest.mark.parametrize("fam", families(), ids=["ocp", "fnuz"][:len(families())])
@pytest.mark.parametrize("recipe", ["tensor", "row", "block"])
@pytest.mark.parametrize("scale_result", [None, 4.0])
def test_fp8_out(fam, recipe, scale_result):
    m, n, k = 33, 48, 256
    e4m3 = fam[0]
    qa, sa, qw, sw = make(m, n, k, e4m3, e4m3, recipe)
    out, amax = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=e4m3,
                                  scale_result=scale_result, return_amax=True)
    assert out.dtype == e4m3
    sr = 1.0 if scale_result is None else scale_result
    _, y, mag = reference(qa, sa, qw, sw, recipe)
    fmax = torch.finfo(e4m3).max
    want = (y * sr).clamp(-fmax, fmax) / sr  # saturating, as torch's conversion is not
    tol = bound(e4m3, k, mag, y, None, out_scale=1.0 / sr)
    assert_within(out.cpu().double() / sr, want, tol, f"fp8 out {recipe}")
    assert abs(amax.item() - y.abs().max().item()) <= accumulation_bound(k, mag).max().item()


@pytest.mark.parametrize("ea,eb", [(torch.float8_e4m3fn, torch.float8_e5m2),
                                   (torch.float8_e5m2, torch.float8_e4m3fn),
                                   (torch.float8_e5m2, torch.float8_e5m2)])
@pytest.mark.parametrize("recipe", ["tensor", "row"])
def test_mixed_formats(ea, eb, recipe):
    m, n, k = 17, 32, 128
    qa, sa, qw, sw = make(m, n, k, ea, eb, recipe)
    out = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.float32)
    _, y, mag = reference(qa, sa, qw, sw, recipe)
    assert_within(out.cpu(), y, bound(torch.float32, k, mag, y, None), f"{ea} x {eb}")


@pytest.mark.parametrize("recipe", ["tensor", "row"])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("fast", [False, True])
def test_against_torch_scaled_mm(recipe, out_dtype, fast):
    """Same bytes through torch._scaled_mm (CPU kernel here, cuBLASLt on CUDA): fp8gemm's
    normwise error against FP64 is within 1.5x torch's (plus the bound, where torch is exact)."""
    m, n, k = (16, 32, 128) if not on_gpu() else (256, 512, 1024)
    qa, sa, qw, sw = make(m, n, k, torch.float8_e4m3fn, torch.float8_e4m3fn, recipe)
    if recipe == "tensor":
        sa_t, sb_t = sa.reshape(()), sw.reshape(())
    else:
        sa_t, sb_t = sa, sw.t()
    ours = fp8gemm.scaled_mm(qa, qw.t(), sa_t, sb_t, out_dtype=out_dtype, use_fast_accum=fast)
    theirs = torch._scaled_mm(qa, qw.t(), sa_t, sb_t, out_dtype=out_dtype, use_fast_accum=fast)
    _, y, mag = reference(qa, sa, qw, sw, recipe)
    err_ours = (ours.cpu().double() - y).norm().item()
    err_torch = (theirs.cpu().double() - y).norm().item()
    floor = bound(out_dtype, k, mag, y, None, fast_accum=fast).norm().item()
    assert err_ours <= 1.5 * err_torch + floor, (err_ours, err_torch, floor)


def test_recipe_forms_match():
    """Row-wise given as (M, 1) / (1, N) and as 1-D; A's block scales row- or column-major."""
    m, n, k = 17, 32, 256
    qa, sa, qw, sw = make(m, n, k, torch.float8_e4m3fn, torch.float8_e4m3fn, "row")
    one = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.float32)
    two = fp8gemm.scaled_mm(qa, qw.t(), sa.reshape(m), sw.reshape(n), out_dtype=torch.float32)
    assert torch.equal(one, two)
    qa, sa, qw, sw = make(m, n, k, torch.float8_e4m3fn, torch.float8_e4m3fn, "block")
    assert sa.stride() == (1, m)  # torch's layout, as quantize writes it
    col = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.float32)
    row = fp8gemm.scaled_mm(qa, qw.t(), sa.contiguous(), sw.t(), out_dtype=torch.float32)
    assert torch.equal(col, row)
    # column-major read in place (Gemm's K-block-major scale_a), also with a leading dimension
    # past M: NaN between the columns would reach the output if read
    big = torch.full((sa.shape[1], m + 5), float("nan"), device=sa.device)
    big[:, :m] = sa.t()
    padded = big[:, :m].t()
    assert padded.stride() == (1, m + 5)
    assert torch.equal(fp8gemm.scaled_mm(qa, qw.t(), padded, sw.t(), out_dtype=torch.float32), row)


def test_fast_accum_flag_cpu_is_exact():
    """On CDNA (and the CPU) MFMA accumulates in FP32 anyway: use_fast_accum changes nothing."""
    if on_gpu() and not torch.version.hip:
        pytest.skip("sm_90 fast accumulation differs by design")
    qa, sa, qw, sw = make(16, 32, 256, torch.float8_e4m3fn, torch.float8_e4m3fn, "row")
    a = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.float32)
    b = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.float32, use_fast_accum=True)
    assert torch.equal(a, b)


def test_inputs_unchanged_and_output_fresh():
    qa, sa, qw, sw = make(17, 32, 128, torch.float8_e4m3fn, torch.float8_e4m3fn, "row")
    before = [t.clone() for t in (qa, sa, qw, sw)]
    out1 = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t())
    out2 = fp8gemm.scaled_mm(qa, qw.t(), sa, sw.t())
    for t, b in zip((qa, sa, qw, sw), before):
        assert torch.equal(t.view(torch.uint8) if t.element_size() == 1 else t,
                           b.view(torch.uint8) if b.element_size() == 1 else b)
    assert out1.data_ptr() != out2.data_ptr() and torch.equal(out1, out2)
    assert math.isfinite(out1.float().abs().max().item())
