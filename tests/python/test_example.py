# SPDX-License-Identifier: MIT
"""examples/python/fp8_mlp.py runs and lands within its stated error of the bf16 reference."""
from pathlib import Path

from conftest import DEVICE, run_python

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/python/fp8_mlp.py"


def test_fp8_mlp_example():
    code = (f"import sys; sys.argv = ['fp8_mlp.py', '--device', {DEVICE!r}]; "
            f"exec(compile(open({str(EXAMPLE)!r}).read(), 'fp8_mlp.py', 'exec'))")
    r = run_python(code)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "relative error vs bf16 torch" in r.stdout
