# SPDX-License-Identifier: MIT
"""fp8gemm.quantize (torch ops, any device) bit for bit against fp8gemm's own host quantizer
(quantize_a_host / quantize_b_host through the CPU library), in the layouts scaled_mm takes."""
from __future__ import annotations

import math

import pytest
import torch

import fp8gemm
from conftest import device, requires_backend

GRANS = {"tensor": (0, False), "row": (1, False), "1x128": (2, False), "128x128": (2, True),
         "mx32": (3, False)}
FORMATS = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]


def special_rows(rows, k):
    """Random rows plus an all-zero row (amax 0: s = 1), a row of float32 subnormal-scale values
    (amax / fmt_max subnormal: s = 1) and a row with one huge value (saturation elsewhere)."""
    x = torch.randn(rows, k) * torch.exp2(torch.randint(-6, 7, (rows, 1)).float())
    x[0] = 0
    if rows > 1:
        x[1] = torch.randn(k) * 1e-40
    if rows > 2:
        x[2, 0] = 3e4
    return x


@requires_backend("cpu")
@pytest.mark.parametrize("dtype", FORMATS, ids=str)
@pytest.mark.parametrize("gran", list(GRANS))
@pytest.mark.parametrize("shape", [(1, 32), (5, 200), (130, 257)])
def test_bit_identical_to_library(dtype, gran, shape):
    x = special_rows(*shape)
    q, s = fp8gemm.quantize(x, dtype, gran)
    recipe, weight = GRANS[gran]
    q_ref, s_ref = torch.ops.fp8gemm._quantize_reference(x, dtype, recipe, weight)
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))
    if gran == "mx32":
        assert s.dtype == torch.float8_e8m0fnu
        assert torch.equal(s.view(torch.uint8), s_ref)
    else:
        assert torch.equal(s.reshape(s_ref.shape).contiguous(), s_ref)


@pytest.mark.parametrize("gran", list(GRANS))
def test_layouts(gran):
    rows, k = 130, 257
    q, s = fp8gemm.quantize(torch.randn(rows, k), torch.float8_e4m3fn, gran)
    assert q.shape == (rows, k) and q.dtype == torch.float8_e4m3fn
    want = {"tensor": (), "row": (rows, 1), "1x128": (rows, math.ceil(k / 128)),
            "128x128": (math.ceil(rows / 128), math.ceil(k / 128)),
            "mx32": (rows, math.ceil(k / 32))}[gran]
    assert tuple(s.shape) == want
    if gran == "1x128":
        assert s.stride() == (1, rows)  # torch._scaled_mm's scale_a layout


def test_dequantized_error_bound():
    """|q s - x| <= half an e4m3 ulp of |x| (2^-4 relative) above the subnormals."""
    x = torch.randn(64, 256)
    q, s = fp8gemm.quantize(x, torch.float8_e4m3fn, "row")
    err = (q.double() * s.double() - x.double()).abs()
    assert bool((err <= 2.0 ** -4 * x.double().abs() + s.double() * 2.0 ** -10).all())


def test_non_finite_gives_nan_scale():
    x = torch.randn(3, 64)
    x[1, 5] = float("inf")
    _, s = fp8gemm.quantize(x, torch.float8_e4m3fn, "row")
    assert math.isnan(s[1, 0].item()) and math.isfinite(s[0, 0].item())


def test_errors():
    with pytest.raises(ValueError, match="granularity"):
        fp8gemm.quantize(torch.randn(4, 32), torch.float8_e4m3fn, "2x2")
    with pytest.raises(ValueError, match="float8"):
        fp8gemm.quantize(torch.randn(4, 32), torch.bfloat16, "row")
    with pytest.raises(ValueError, match="2-D"):
        fp8gemm.quantize(torch.randn(4), torch.float8_e4m3fn, "row")


@pytest.mark.parametrize("gran", list(GRANS))
def test_same_bits_on_the_device(gran):
    """The torch ops give the same bits wherever they run (on the CPU: trivially)."""
    x = special_rows(70, 300)
    q_cpu, s_cpu = fp8gemm.quantize(x, torch.float8_e4m3fn, gran)
    q_dev, s_dev = fp8gemm.quantize(x.to(device()), torch.float8_e4m3fn, gran)
    assert torch.equal(q_dev.cpu().view(torch.uint8), q_cpu.view(torch.uint8))
    assert torch.equal(s_dev.cpu().reshape(-1).view(torch.uint8),
                       s_cpu.reshape(-1).view(torch.uint8))


@pytest.mark.parametrize("gran", list(GRANS))
def test_empty(gran):
    q, s = fp8gemm.quantize(torch.empty(0, 64), torch.float8_e4m3fn, gran)
    assert q.shape == (0, 64)
    assert s.float().numel() == 0 or bool((s.float() == 1).all())


def test_mx32_non_finite_block_is_nan():
    """A block holding Inf: its e8m0 scale is 0xff (NaN) and its q NaN, as the library writes it
    (which also reports the element as an error); the other blocks are untouched."""
    x = torch.randn(2, 64)
    x[1, 40] = float("inf")
    q, s = fp8gemm.quantize(x, torch.float8_e4m3fn, "mx32")
    bits = s.view(torch.uint8)
    assert bits[1, 1].item() == 0xFF and (bits[0] != 0xFF).all() and bits[1, 0].item() != 0xFF
    assert bool(torch.isnan(q[1, 32:].float()).all()) and bool(torch.isfinite(q[0].float()).all())
