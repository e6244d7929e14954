# SPDX-License-Identifier: MIT
"""The installed package: its libraries load, link the system libstdc++ dynamically (a second,
static copy in the torch process crashed std::regex / ostream formatting, see
notes/pytorch-op.md), resolve torch through their RPATH, and export none of fp8gemm's
instantiations (each backend library keeps its own: the emulator's and the GPU's bodies of one
template differ, and both load into one process)."""
import shutil
import subprocess

import pytest

import fp8gemm


def libraries():
    return list(fp8gemm.backends().items())


def test_a_library_is_loaded():
    assert fp8gemm.backends(), "no fp8gemm backend library was found beside the package"


@pytest.mark.skipif(any(shutil.which(t) is None for t in ("ldd", "nm", "readelf")),
                    reason="needs ldd, nm and readelf")
@pytest.mark.parametrize("name,path", libraries(), ids=[n for n, _ in libraries()])
def test_library_linkage(name, path):
    ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    assert "libstdc++.so.6" in ldd, ldd
    exported = subprocess.run(["nm", "-D", "--defined-only", "-C", path], capture_output=True,
                              text=True).stdout
    # fp8gemm's own functions stay hidden; std:: templates over its types may be exported weak
    # (libstdc++ declares them with default visibility), and -Bsymbolic binds each library to
    # its own copies of those
    leaked = [line for line in exported.splitlines()
              if len(line.split(" ", 2)) == 3 and line.split(" ", 2)[2].startswith("fp8gemm::")]
    assert not leaked, leaked[:3]
    dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    assert "SYMBOLIC" in dynamic, dynamic
