# SPDX-License-Identifier: MIT
"""The README's Python block (under its "checked:" marker) runs as written, on inputs of the
names it uses, and computes what it says."""
from pathlib import Path

import torch

import fp8gemm
from conftest import device, randn

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- checked: tests/python/test_readme.py -->"


def readme_block() -> str:
    lines = README.read_text().splitlines()
    i = lines.index(MARKER)
    assert lines[i + 1] == "```python"
    end = lines.index("```", i + 2)
    return "\n".join(lines[i + 2:end])


def test_readme_python_block():
    m, n, k, groups = 24, 64, 256, 3
    qa, sa = fp8gemm.quantize(randn(m, k), torch.float8_e4m3fn, "row")
    w_experts = torch.stack([fp8gemm.quantize(randn(n, k), torch.float8_e4m3fn, "row")[0]
                             for _ in range(groups)])
    scope = {"x": randn(m, k), "w": randn(n, k), "b": randn(1, n).reshape(n),
             "qa": qa, "sa": sa.reshape(m), "w_experts": w_experts,
             "s_experts": torch.rand(groups, n, device=device()) + 0.5,
             "offs": torch.tensor([5, 5, m], dtype=torch.int32, device=device())}
    exec(compile(readme_block(), "README.md", "exec"), scope)
    y, out = scope["y"], scope["out"]
    ref = torch.nn.functional.gelu(scope["x"] @ scope["w"].t() + scope["b"], approximate="tanh")
    assert y.shape == (m, n) and y.dtype == torch.bfloat16
    rel = ((y.float() - ref).norm() / ref.norm()).item()
    assert rel < 0.08, rel  # e4m3 operands: a few percent (examples/python/fp8_mlp.py)
    assert out.shape == (m, n)
