# SPDX-License-Identifier: MIT
"""Every refusal is a ValueError / NotImplementedError with fp8gemm's message, from the Python
entry points and from the C++ ops called directly (in a fresh interpreter, so that a crash there
fails one test instead of taking pytest down); the compiled matrix of _ops.py matches the C++."""
from __future__ import annotations

import itertools

import pytest
import torch

import fp8gemm
from fp8gemm import _ops
from conftest import device, on_gpu, run_python

E4 = torch.float8_e4m3fn


def operands(m=16, n=32, k=128, dtype=E4):
    a = torch.randn(m, k).to(dtype).to(device())
    w = torch.randn(n, k).to(dtype).to(device())
    one = torch.ones((), device=device())
    return a, w, one


@pytest.mark.parametrize("case,exc,match", [
    ("k_mismatch", ValueError, "K differs"),
    ("three_d", ValueError, "2-D"),
    ("bad_recipe_shapes", ValueError, "cannot tell the scale recipe"),
    ("bf16_operands", ValueError, "float8"),
    ("ocp_fnuz_mix", ValueError, "mix OCP and FNUZ"),
    ("bad_activation", ValueError, "activation"),
    ("bias_shape", ValueError, "bias must be"),
    ("scale_result_not_fp8", ValueError, "scale_result is only for fp8"),
    ("scale_result_negative", ValueError, "positive and finite"),
    ("not_compiled", NotImplementedError, "has no kernel"),
    ("library_refusal", ValueError, "fp8gemm: "),
])
def test_python_errors(case, exc, match):
    a, w, one = operands()
    args = dict(a=a, b=w.t(), scale_a=one, scale_b=one)
    if case == "k_mismatch":
        args["b"] = operands(k=64)[1].t()
    elif case == "three_d":
        args["a"] = a.reshape(1, 16, 128)
    elif case == "bad_recipe_shapes":
        args["scale_a"] = torch.ones(3, device=device())
    elif case == "bf16_operands":
        args["a"] = a.to(torch.bfloat16)
    elif case == "ocp_fnuz_mix":
        args["b"] = w.view(torch.uint8).view(torch.float8_e4m3fnuz).t()
    elif case == "bad_activation":
        args["activation"] = "relu"
    elif case == "bias_shape":
        args["bias"] = torch.ones(5, device=device())
    elif case == "scale_result_not_fp8":
        args["scale_result"] = 2.0
    elif case == "scale_result_negative":
        args.update(out_dtype=E4, scale_result=-1.0)
    elif case == "not_compiled":
        args.update(a=a.to(torch.float8_e5m2), activation="gelu_erf")
    elif case == "library_refusal":  # K = 24: the library's own can_implement says why
        a2, w2, _ = operands(k=24)
        args.update(a=a2, b=w2.t())
    with pytest.raises(exc, match=match):
        fp8gemm.scaled_mm(**args)


def test_eager_calls_check_in_python_only_after_a_refusal(monkeypatch):
    """An eager call the op accepts skips the Python checks (the op runs the same ones: host time
    per call); one it refuses runs them first, so the message is still the Python one."""
    calls = []
    real = _ops.check_mm

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_ops, "check_mm", counting)
    a, w, one = operands()
    out = fp8gemm.scaled_mm(a, w.t(), one, one)
    assert out.shape == (16, 32) and not calls
    with pytest.raises(ValueError, match="mix OCP and FNUZ"):
        fp8gemm.scaled_mm(a, w.view(torch.uint8).view(torch.float8_e4m3fnuz).t(), one, one)
    assert calls


DIRECT = r"""
import torch, fp8gemm
dev = {dev!r}
a = torch.randn(16, 128).to(torch.float8_e4m3fn).to(dev)
b = torch.randn(32, 128).to(torch.float8_e4m3fn).to(dev)
one = torch.ones(1, device=dev)
mm = torch.ops.fp8gemm.mm.default
gm = torch.ops.fp8gemm.grouped_mm.default
cases = {{
  "b_not_contiguous": lambda: mm(a, b.t().contiguous().t(), one, one, 0, None, torch.bfloat16, None, 0, False, False),
  "k_differs": lambda: mm(a, b[:, :64].contiguous(), one, one, 0, None, torch.bfloat16, None, 0, False, False),
  "recipe_code": lambda: mm(a, b, one, one, 7, None, torch.bfloat16, None, 0, False, False),
  "activation_code": lambda: mm(a, b, one, one, 0, None, torch.bfloat16, None, 9, False, False),
  "scale_dtype": lambda: mm(a, b, one.double(), one, 0, None, torch.bfloat16, None, 0, False, False),
  "bias_dtype": lambda: mm(a, b, one, one, 0, torch.ones(32, device=dev, dtype=torch.bfloat16), torch.bfloat16, None, 0, False, False),
  "scale_count": lambda: mm(a, b, torch.ones(3, device=dev), torch.ones(32, device=dev), 1, None, torch.bfloat16, None, 0, False, False),
  "fp8_out_no_scale": lambda: mm(a, b, one, one, 0, None, torch.float8_e4m3fn, None, 0, False, False),
  "out_dtype": lambda: mm(a, b, one, one, 0, None, torch.int32, None, 0, False, False),
  "grouped_both_counts": lambda: gm(a, b.reshape(1, 32, 128), one, one, torch.ones(1, dtype=torch.int32, device=dev), torch.ones(1, dtype=torch.int32, device=dev), 0, None, torch.bfloat16, 0),
  "grouped_counts_dtype": lambda: gm(a, b.reshape(1, 32, 128), one, one, torch.ones(1, device=dev), None, 0, None, torch.bfloat16, 0),
  # column-major block scale_a: (M, ceil(K / 128)) only, in grouped GEMMs too
  "block_scale_a_column_major_shape": lambda: mm(a, b, torch.ones(2, 16, device=dev).t(), torch.ones(1, 1, device=dev), 2, None, torch.bfloat16, None, 0, False, False),
  "grouped_block_scale_a_column_major": lambda: gm(a, b.reshape(1, 32, 128), torch.ones(2, 16, device=dev).t(), torch.ones(1, 1, 1, device=dev), torch.full((1,), 16, dtype=torch.int32, device=dev), None, 0, None, torch.bfloat16, 0),
}}
for name, f in cases.items():
    try:
        f()
        print(name, "NO ERROR")
    except (RuntimeError, ValueError, NotImplementedError) as e:  # torch's mapping, by version
        msg = str(e)
        print(name, "Error", msg[msg.find("fp8gemm: "):].splitlines()[0] if "fp8gemm: " in msg else "UNNAMED " + msg.splitlines()[0])
print("done")
"""


def test_direct_op_errors_in_subprocess():
    """The C++ ops refuse bad tensors with fp8gemm's message (never a crash, never silence)."""
    r = run_python(DIRECT.format(dev=str(device())))
    assert r.returncode == 0, r.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    assert r.stdout.strip().endswith("done")
    assert len(lines) == 13, r.stdout
    for name, what in lines.items():
        assert what.startswith("Error fp8gemm: "), (name, what)


def test_compiled_matrix_matches_the_library():
    """For every dtype pair (mixed OCP / FNUZ pairs too), recipe, out dtype and activation,
    _ops.compiled() predicts exactly which calls the C++ library refuses as unsupported. The
    eager scaled_mm runs the Python checks only after the op refuses, so a call they refuse
    must be refused by the op too."""
    backend = _ops.backend_of(torch.empty(0, device=device()))
    mm = torch.ops.fp8gemm.mm.default
    m, n, k = 16, 32, 128
    x = torch.randn(m, k, device=device())
    y = torch.randn(n, k, device=device())
    outs = list(_ops.WIDE_OUT) + list(_ops.FP8)
    checked = 0
    for ea, eb in itertools.product(_ops.FP8, _ops.FP8):
        a, b = x.to(ea), y.to(eb)
        for recipe, out, act in itertools.product(_ops.RECIPES, outs, range(3)):
            if recipe == "mx32":
                sa = torch.full((m, k // 32), 127, dtype=torch.uint8, device=device())
                sb = torch.full((n, k // 32), 127, dtype=torch.uint8, device=device())
            elif recipe == "block":
                sa = torch.ones(m, 1, device=device())
                sb = torch.ones(1, 1, device=device())
            elif recipe == "row":
                sa, sb = torch.ones(m, device=device()), torch.ones(n, device=device())
            else:
                sa = sb = torch.ones(1, device=device())
            out_scale = 1.0 if out in _ops.FP8 else None
            want = _ops.compiled(backend, ea, eb, recipe, out, _ops.ACTIVATIONS[act])
            try:
                mm(a, b, sa, sb, _ops.RECIPES.index(recipe), None, out, out_scale, act, False,
                   False)
                got = True
            except RuntimeError as e:
                assert "fp8gemm: unsupported:" in str(e), str(e)
                got = False
            assert got == want, (ea, eb, recipe, out, act, got, want)
            checked += 1
    assert checked > 800


@pytest.mark.skipif(on_gpu(), reason="the CPU has no GPU library to miss")
def test_missing_backend_is_named():
    r = run_python("import torch, fp8gemm\n"
                   "fp8gemm._LOADED.pop('cpu')\n"
                   "a = torch.zeros(16, 32).to(torch.float8_e4m3fn)\n"
                   "try:\n"
                   "    fp8gemm.scaled_mm(a, a.t(), torch.ones(()), torch.ones(()))\n"
                   "except NotImplementedError as e:\n"
                   "    print('NotImplementedError', e)\n")
    assert "NotImplementedError fp8gemm: unsupported: no fp8gemm library for cpu" in r.stdout, \
        r.stdout + r.stderr


def test_hip_libraries_split_the_cpu_librarys_kernels():
    """The HIP libraries carry the CPU library's kernels, split by device: gfx950 the OCP formats
    (MX-32 included), gfx942 the FNUZ formats (the CPU library's rule is checked against the C++
    one above; kernels.hpp applies the same rule per FP8GEMM_TORCH_HIP_FNUZ)."""
    outs = list(_ops.WIDE_OUT) + list(_ops.FP8)
    for ea, eb in itertools.product(_ops.FP8, _ops.FP8):
        for recipe, out, act in itertools.product(_ops.RECIPES, outs, _ops.ACTIVATIONS):
            cpu = _ops.compiled("cpu", ea, eb, recipe, out, act)
            gfx950 = _ops.compiled("hip_gfx950", ea, eb, recipe, out, act)
            gfx942 = _ops.compiled("hip_gfx942", ea, eb, recipe, out, act)
            assert not (gfx950 and gfx942)
            assert cpu == (gfx950 or gfx942), (ea, eb, recipe, out, act)
            if gfx950:
                assert ea not in _ops.FNUZ
            if gfx942:
                assert ea in _ops.FNUZ and recipe != "mx32"
