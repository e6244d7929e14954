# SPDX-License-Identifier: MIT
"""fp8gemm.scaled_grouped_mm against FP64 per group: torch's contiguous 2d x 3d form (offs,
unaligned and empty groups) and the masked form, tensor / row / block scales, bias; and against
torch._scaled_grouped_mm on CUDA."""
from __future__ import annotations

import math

import pytest
import torch

import fp8gemm
from conftest import FNUZ, OCP, assert_within, bound, dequant, device, on_gpu, randn


def families():
    return [OCP] if on_gpu() and not torch.version.hip else [OCP, FNUZ]


def group_weights(groups, n, k, dtype, recipe):
    """(G, N, K) weights quantized per group; b = qw.transpose(-2, -1) is torch's (G, K, N)."""
    qs, ss = [], []
    for _ in range(groups):
        q, s = fp8gemm.quantize(randn(n, k, scale=0.5), dtype,
                                {"tensor": "tensor", "row": "row", "block": "128x128"}[recipe])
        qs.append(q)
        ss.append(s)
    qw = torch.stack(qs)
    if recipe == "tensor":
        return qw, torch.stack(ss).reshape(groups)
    if recipe == "row":
        return qw, torch.stack(ss).reshape(groups, n)
    return qw, torch.stack(ss).transpose(-2, -1)  # (G, K/128, N/128), torch's per-group layout


def activations(rows, k, dtype, recipe, groups):
    x = randn(max(rows, 1), k)[:rows]
    if recipe == "tensor":
        q, s = fp8gemm.quantize(x, dtype, "tensor")
        return q, s.reshape(1)
    q, s = fp8gemm.quantize(x, dtype, "row" if recipe == "row" else "1x128")
    return q, (s.reshape(rows) if recipe == "row" else s)


def check_group(out_rows, qa_rows, sa_rows, qw, sw_g, recipe, k, out_dtype, bias_g=None):
    a = dequant(qa_rows.cpu(), sa_rows.cpu().contiguous() if sa_rows.dim() else sa_rows.cpu(),
                recipe, False)
    b = dequant(qw.cpu(), sw_g.cpu().contiguous(), recipe, True)
    y = a @ b.t()
    if bias_g is not None:
        y = y + bias_g.cpu().double()
    mag = a.abs() @ b.abs().t()
    assert_within(out_rows.cpu(), y, bound(out_dtype, k, mag, y, None), f"group {recipe}")


@pytest.mark.parametrize("fam", families(), ids=["ocp", "fnuz"][:len(families())])
@pytest.mark.parametrize("recipe", ["tensor", "row", "block"])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float32])
def test_contiguous(fam, recipe, out_dtype):
    sizes = [0, 1, 17, 64, 0, 33]  # unaligned, empty groups, an empty last-but-one
    # blocks: each group's B starts a 128-row scale block, so N is a multiple of 128; two blocks,
    # so that a transposed scale_b cannot pass
    groups, n, k = len(sizes), (256 if recipe == "block" else 48), 256
    rows = sum(sizes)
    qa, sa = activations(rows, k, fam[0], recipe, groups)
    qw, sw = group_weights(groups, n, k, fam[0], recipe)
    offs = torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32).to(device())
    bias = randn(groups, n).to(torch.bfloat16)
    out = fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs, bias=bias,
                                    out_dtype=out_dtype)
    assert out.shape == (rows, n) and out.dtype == out_dtype
    start = 0
    for g, m in enumerate(sizes):
        if m == 0:
            continue
        rows_g = slice(start, start + m)
        sa_g = sa if recipe == "tensor" else sa[rows_g]
        sw_g = sw[g].reshape(1) if recipe == "tensor" else (sw[g] if recipe == "row"
                                                            else sw[g].transpose(0, 1))
        check_group(out[rows_g], qa[rows_g], sa_g, qw[g], sw_g, recipe, k, out_dtype, bias[g])
        start += m


def test_contiguous_block_scale_a_layouts_match():
    """Contiguous groups' block A scales row-major, column-major (quantize's layout, read in place
    as GroupedGemm's K-block-major scale_a) and column-major with a leading dimension past M
    whose gaps hold NaN (any read of them would reach the output): the same bits."""
    sizes = [5, 0, 130, 1]
    groups, n, k = len(sizes), 256, 3 * 128
    rows = sum(sizes)
    qa, sa = activations(rows, k, torch.float8_e4m3fn, "block", groups)
    assert sa.stride() == (1, rows)
    qw, sw = group_weights(groups, n, k, torch.float8_e4m3fn, "block")
    offs = torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32).to(device())
    b = qw.transpose(-2, -1)
    col = fp8gemm.scaled_grouped_mm(qa, b, sa, sw, offs=offs, out_dtype=torch.float32)
    row = fp8gemm.scaled_grouped_mm(qa, b, sa.contiguous(), sw, offs=offs, out_dtype=torch.float32)
    big = torch.full((sa.shape[1], rows + 3), float("nan"), device=sa.device)
    big[:, :rows] = sa.t()
    padded = big[:, :rows].t()
    assert padded.stride() == (1, rows + 3)
    pad = fp8gemm.scaled_grouped_mm(qa, b, padded, sw, offs=offs, out_dtype=torch.float32)
    assert torch.equal(col, row) and torch.equal(pad, row)
    assert not row.isnan().any()


@pytest.mark.parametrize("recipe", ["tensor", "row", "block"])
def test_masked(recipe):
    groups, cap, n, k = 3, 40, (256 if recipe == "block" else 32), 256
    masked = [40, 0, 13]
    dtype = torch.float8_e4m3fn
    qa, sa = activations(groups * cap, k, dtype, recipe, groups)
    qw, sw = group_weights(groups, n, k, dtype, recipe)
    qa3 = qa.reshape(groups, cap, k)
    sa3 = (sa if recipe == "tensor" else
           sa.reshape(groups, cap) if recipe == "row" else sa.reshape(groups, cap, -1))
    mm = torch.tensor(masked, dtype=torch.int32, device=device())
    out = fp8gemm.scaled_grouped_mm(qa3, qw.transpose(-2, -1), sa3, sw, masked_m=mm,
                                    out_dtype=torch.float32)
    assert out.shape == (groups, cap, n)
    for g, m in enumerate(masked):
        if m == 0:
            continue
        sa_g = sa3 if recipe == "tensor" else sa3[g, :m]
        sw_g = (sw[g].reshape(1) if recipe == "tensor" else
                sw[g] if recipe == "row" else sw[g].transpose(0, 1))
        check_group(out[g, :m], qa3[g, :m], sa_g, qw[g], sw_g, recipe, k, torch.float32)


def test_errors():
    dtype = torch.float8_e4m3fn
    qa, sa = activations(8, 128, dtype, "row", 2)
    qw, sw = group_weights(2, 32, 128, dtype, "row")
    offs = torch.tensor([4, 8], dtype=torch.int32, device=device())
    with pytest.raises(ValueError, match="exactly one of offs"):
        fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw)
    with pytest.raises(ValueError, match="int32"):
        fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs.long())
    with pytest.raises(ValueError, match="scale recipe"):
        fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa[:3], sw, offs=offs)
    with pytest.raises(NotImplementedError, match="grouped kernel"):
        fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs,
                                  out_dtype=torch.float8_e4m3fn)


@pytest.mark.skipif(not on_gpu() or torch.version.hip is not None, reason="CUDA only")
def test_against_torch_scaled_grouped_mm():
    sizes = [128, 0, 256, 64]
    groups, n, k = len(sizes), 512, 1024
    qa, sa = activations(sum(sizes), k, torch.float8_e4m3fn, "row", groups)
    qw, sw = group_weights(groups, n, k, torch.float8_e4m3fn, "row")
    offs = torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32).cuda()
    ours = fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs)
    theirs = torch._scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs,
                                      out_dtype=torch.bfloat16)
    ref = torch.cat([
        (dequant(qa[s:e].cpu(), sa[s:e].cpu(), "row", False)
         @ dequant(qw[g].cpu(), sw[g].cpu(), "row", True).t())
        for g, (s, e) in enumerate(zip([0] + list(offs.cpu()[:-1]), list(offs.cpu())))])
    err_ours = (ours.cpu().double() - ref).norm().item()
    err_torch = (theirs.cpu().double() - ref).norm().item()
    assert err_ours <= 1.5 * err_torch + 1e-6 * math.sqrt(ref.numel()), (err_ours, err_torch)


def test_block_scales_not_mistaken_for_per_group():
    """One row per group with N = K = 128: scale_a has G values and scale_b G (1 x 1 blocks), as a
    tensor-wise call would; the shapes say blocks, and blocks it computes."""
    groups, n, k = 3, 128, 128
    qa, sa = activations(groups, k, torch.float8_e4m3fn, "block", groups)
    qw, sw = group_weights(groups, n, k, torch.float8_e4m3fn, "block")
    assert sa.shape == (groups, 1) and sw.shape == (groups, 1, 1)
    offs = torch.arange(1, groups + 1, dtype=torch.int32, device=device())
    out = fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa, sw, offs=offs,
                                    out_dtype=torch.float32)
    for g in range(groups):
        check_group(out[g:g + 1], qa[g:g + 1], sa[g:g + 1], qw[g], sw[g].transpose(0, 1),
                    "block", k, torch.float32)
