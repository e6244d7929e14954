#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python environment of the PyTorch ops' build and tests: a venv at a FIXED path outside the
# repository (pip's cache does not persist on these machines; a clean clone must not download
# 2 GB again), created once, reused after. Prints the venv's python on the last line of stdout.
#
# torch 2.15.0 from PyPI (a CUDA build; on a machine without a GPU it runs on the CPU, and
# torch._scaled_mm has a CPU kernel) installed lean: --no-deps plus the four NVIDIA wheels
# `import torch` loads and torch's pure-Python requirements (about 2 GB, 20-60 s); the other CUDA
# libraries it loads come from the system's CUDA 13 (ld.so.conf). Then the build and test tools.
# Environment: FP8GEMM_PYTHON_ENV (default $HOME/.cache/fp8gemm/venv-torch-2.15.0).
set -euo pipefail
ENV_DIR="${FP8GEMM_PYTHON_ENV:-$HOME/.cache/fp8gemm/venv-torch-2.15.0}"
STAMP="$ENV_DIR/.fp8gemm-env-v1"
PACKAGES=(torch==2.15.0 nvidia-nccl-cu13==2.30.7 nvidia-cusparselt-cu13==0.8.1
          nvidia-nvshmem-cu13==3.7.2 nvidia-cufile==1.17.1.22
          filelock==4.3.2 typing-extensions==4.16.0 sympy==1.14.0 mpmath==1.4.1 networkx==3.6.1
          jinja2==3.1.6 MarkupSafe==3.0.4 fsspec==2026.9.0 'setuptools>=77.0.3' numpy==2.4.6
          pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 packaging==26.4 pygments==2.21.0
          scikit-build-core==1.1.2 pathspec==1.1.1)
log() { printf '[python_env] %s\n' "$*" >&2; }
if [[ ! -f $STAMP ]]; then
  command -v python3 >/dev/null || { log "python3 is missing"; exit 1; }
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    log "installing python3-venv"
    SUDO=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && SUDO=sudo
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-venv >&2
  }
  log "creating $ENV_DIR (torch 2.15.0 and the test tools; once per machine)"
  rm -rf "$ENV_DIR"
  python3 -m venv "$ENV_DIR"
  "$ENV_DIR/bin/pip" install -q --no-deps "${PACKAGES[@]}" >&2
  "$ENV_DIR/bin/python" -c 'import torch, pytest, scikit_build_core; assert torch.__version__.startswith("2.15.0")' >&2
  touch "$STAMP"
fi
echo "$ENV_DIR/bin/python"
