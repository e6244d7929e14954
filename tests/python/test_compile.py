# SPDX-License-Identifier: MIT
"""The ops under torch.compile(fullgraph=True, dynamic=True) (no graph breaks: the kernel choice
happens inside the op), fake tensors, opcheck; CUDA graphs and a side stream on the GPU."""
from __future__ import annotations

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import fp8gemm
from conftest import device, on_gpu

E4 = torch.float8_e4m3fn


def block(x, w, sw, bias):
    """What a user writes: quantize activations per row, GEMM with fused GELU."""
    qx, sx = fp8gemm.quantize(x, E4, "row")
    return fp8gemm.scaled_mm(qx, w.t(), sx, sw, bias=bias, activation="gelu_tanh")


def inputs(m, n=64, k=256):
    x = torch.randn(m, k, device=device())
    qw, sw = fp8gemm.quantize(torch.randn(n, k, device=device()), E4, "row")
    return x, qw, sw.t(), torch.randn(n, device=device()).to(torch.bfloat16)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_fullgraph_dynamic(backend):
    torch._dynamo.reset()
    compiled = torch.compile(block, fullgraph=True, dynamic=True, backend=backend)
    for m in (5, 17, 33):  # one graph for every M
        args = inputs(m)
        want = block(*args)
        got = compiled(*args)
        assert got.shape == want.shape and got.dtype == want.dtype
        # the same bytes reach the same kernel: bit for bit (inductor may fuse quantize's ops
        # differently, so there compare through the dequantized error instead)
        if backend == "aot_eager":
            assert torch.equal(got, want)
        else:
            assert (got.float() - want.float()).abs().max().item() <= \
                0.02 * want.float().abs().max().item()


def test_compile_fails_at_trace_time_on_bad_arguments():
    torch._dynamo.reset()

    def bad(a, b):
        return fp8gemm.scaled_mm(a, b, torch.ones((), device=a.device),
                                 torch.ones((), device=a.device), activation="relu")

    a = torch.randn(16, 128, device=device()).to(E4)
    with pytest.raises(Exception, match="activation must be None"):
        torch.compile(bad, fullgraph=True, backend="aot_eager")(a, a.t())


def test_fake_tensors():
    with FakeTensorMode():
        a = torch.empty(7, 256, dtype=E4, device=device())
        w = torch.empty(48, 256, dtype=E4, device=device())
        out, amax = fp8gemm.scaled_mm(a, w.t(), torch.ones(7, 1), torch.ones(1, 48),
                                      out_dtype=torch.float16, return_amax=True)
        assert out.shape == (7, 48) and out.dtype == torch.float16 and amax.shape == ()
        g = fp8gemm.scaled_grouped_mm(torch.empty(10, 256, dtype=E4, device=device()),
                                      torch.empty(3, 48, 256, dtype=E4,
                                                  device=device()).transpose(-2, -1),
                                      torch.ones(10), torch.ones(3, 48),
                                      offs=torch.empty(3, dtype=torch.int32, device=device()))
        assert g.shape == (10, 48) and g.dtype == torch.bfloat16


def test_opcheck():
    """torch.library.opcheck's fake-tensor and AOT-dispatch checks (test_schema cannot run on
    float8 inputs: it multiplies them)."""
    a = torch.randn(16, 128, device=device()).to(E4)
    b = torch.randn(32, 128, device=device()).to(E4)
    sa, sb = torch.ones(16, device=device()), torch.ones(32, device=device())
    utils = ("test_faketensor", "test_aot_dispatch_dynamic")
    torch.library.opcheck(torch.ops.fp8gemm.mm.default,
                          (a, b, sa, sb, 1, None, torch.bfloat16, None, 0, False, True),
                          test_utils=utils)
    offs = torch.tensor([5, 16], dtype=torch.int32, device=device())
    torch.library.opcheck(torch.ops.fp8gemm.grouped_mm.default,
                          (a, b.reshape(2, 16, 128), sa, torch.ones(2, 16, device=device()),
                           offs, None, 1, None, torch.bfloat16, 0), test_utils=utils)


@pytest.mark.skipif(not on_gpu(), reason="GPU only")
def test_cuda_graph_and_side_stream():
    x, qw, sw, bias = inputs(64, 256, 512)
    qx, sx = fp8gemm.quantize(x, E4, "row")
    want = fp8gemm.scaled_mm(qx, qw.t(), sx, sw, bias=bias)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = fp8gemm.scaled_mm(qx, qw.t(), sx, sw, bias=bias)
    torch.cuda.current_stream().wait_stream(side)
    assert torch.equal(got, want)
    # capture (the first call outside, so the choice and workspace are warm), then replay on new
    # bytes of the same shape
    g = torch.cuda.CUDAGraph()
    qx2 = qx.clone()
    with torch.cuda.graph(g):
        captured = fp8gemm.scaled_mm(qx2, qw.t(), sx, sw, bias=bias)
    qx2.copy_(fp8gemm.quantize(torch.randn_like(x), E4, "row")[0])
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, fp8gemm.scaled_mm(qx2, qw.t(), sx, sw, bias=bias))


@pytest.mark.skipif(not on_gpu(), reason="GPU only")
def test_grouped_graph_replay_with_new_counts():
    groups, n, k, rows = 4, 256, 512, 512
    qa, sa = fp8gemm.quantize(torch.randn(rows, k, device=device()), E4, "row")
    qw = torch.stack([fp8gemm.quantize(torch.randn(n, k, device=device()), E4, "row")[0]
                      for _ in range(groups)])
    sw = torch.rand(groups, n, device=device()) + 0.5
    offs = torch.tensor([100, 100, 300, 512], dtype=torch.int32, device=device())
    g = torch.cuda.CUDAGraph()
    fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa.reshape(-1), sw, offs=offs)
    with torch.cuda.graph(g):
        out = fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa.reshape(-1), sw, offs=offs)
    offs.copy_(torch.tensor([0, 256, 257, 512], dtype=torch.int32))
    g.replay()
    torch.cuda.synchronize()
    want = fp8gemm.scaled_grouped_mm(qa, qw.transpose(-2, -1), sa.reshape(-1), sw, offs=offs)
    assert torch.equal(out, want)
