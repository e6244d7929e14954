# SPDX-License-Identifier: MIT
"""An FP8 transformer MLP block with fp8gemm's torch ops, against the bf16 torch reference.

    y = W_down · gelu(W_up · x + b_up) + b_down        (x: tokens x hidden)

FP8 path: weights quantized once per output channel (row-wise), activations per token (row-wise)
before each GEMM; the up GEMM fuses bias and GELU into its epilogue and writes bf16; the down GEMM
adds its bias. Runs on the GPU when there is one, else on the CPU (fp8gemm's emulator: keep it
small there).

    python examples/python/fp8_mlp.py                      # CPU: 32 tokens, hidden 256
    python examples/python/fp8_mlp.py --tokens 4096 --hidden 4096 --ffn 14336   # on the H200
"""
import argparse

import torch

import fp8gemm

E4M3 = torch.float8_e4m3fn


class Fp8Linear:
    """A linear layer whose weight is stored as e4m3fn with one scale per output channel."""

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor, activation=None):
        self.q, scale = fp8gemm.quantize(weight, E4M3, "row")  # (out, in), (out, 1)
        self.scale_t = scale.t()  # (1, out): torch._scaled_mm's row-wise scale_b
        self.bias, self.activation = bias, activation

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        qx, sx = fp8gemm.quantize(x, E4M3, "row")  # one scale per token
        return fp8gemm.scaled_mm(qx, self.q.t(), sx, self.scale_t, bias=self.bias,
                                 out_dtype=torch.bfloat16, activation=self.activation)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--ffn", type=int, default=512)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = p.parse_args()
    torch.manual_seed(0)
    dev = torch.device(args.device)
    x = torch.randn(args.tokens, args.hidden, device=dev).to(torch.bfloat16)
    w_up = (torch.randn(args.ffn, args.hidden, device=dev) / args.hidden ** 0.5).to(torch.bfloat16)
    w_down = (torch.randn(args.hidden, args.ffn, device=dev) / args.ffn ** 0.5).to(torch.bfloat16)
    b_up = (0.1 * torch.randn(args.ffn, device=dev)).to(torch.bfloat16)
    b_down = (0.1 * torch.randn(args.hidden, device=dev)).to(torch.bfloat16)

    up = Fp8Linear(w_up, b_up, activation="gelu_tanh")
    down = Fp8Linear(w_down, b_down)
    y = down(up(x))

    ref = torch.nn.functional.linear(
        torch.nn.functional.gelu(torch.nn.functional.linear(x, w_up, b_up), approximate="tanh"),
        w_down, b_down)
    rel = ((y.float() - ref.float()).norm() / ref.float().norm()).item()
    print(f"fp8 MLP on {dev} ({fp8gemm.backends().get(dev.type, '?')}): tokens {args.tokens}, "
          f"hidden {args.hidden}, ffn {args.ffn}: relative error vs bf16 torch {rel:.4f}")
    # e4m3 keeps 3 mantissa bits: each quantized operand is within 2^-4 relative, so two GEMMs
    # of them land a few percent from the bf16 result; 0.08 fails a wrong scale or layout.
    if not rel < 0.08:
        raise SystemExit(f"relative error {rel:.4f} is above 0.08")


if __name__ == "__main__":
    main()
