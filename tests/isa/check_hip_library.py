# SPDX-License-Identifier: MIT
"""Checks a HIP build of the PyTorch ops (python/CMakeLists.txt, _C_hip_<arch>.so), which nothing
here can load (no AMD GPU, no ROCm torch):

  - it needs libamdhip64, libtorch_cpu and libc10;
  - its fat binary holds one code object per kernel source, each for --arch and no other target;
  - every symbol it leaves undefined is defined by a library it needs, except torch's GPU stream
    getter, which a ROCm torch's libtorch_hip defines (and this torch's CUDA sibling, libtorch_cuda,
    when present, is checked to define under the same name);
  - it exports nothing (the ops register from static initializers);
  - the host-only object (the torch glue) carries no device code of its own.

Exits 1 with every failure listed. Needs nm and readelf (binutils).
"""
from __future__ import annotations

import argparse
import struct
import subprocess
import sys
from pathlib import Path

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
# defined by ROCm torch's libtorch_hip (hipified from shim_cuda.cpp, names unchanged)
TORCH_GPU_SHIM = {"aoti_torch_get_current_cuda_stream"}
SYSTEM_LIBS = ["libstdc++.so.6", "libc.so.6", "libm.so.6", "libgcc_s.so.1"]


def run(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def needed(lib: Path) -> list[str]:
    out = run("readelf", "-d", str(lib))
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def dynamic_symbols(lib: Path, which: str) -> list[tuple[str, str]]:
    """(type letter, name without version) of nm -D --<which>-only."""
    rows = []
    for line in run("nm", "-D", f"--{which}-only", str(lib)).splitlines():
        parts = line.split()
        if len(parts) >= 2:
            rows.append((parts[-2], parts[-1].split("@", 1)[0]))
    return rows


def section(lib: Path, name: str) -> bytes | None:
    """The bytes of section `name` of an ELF file (64-bit little endian), or None."""
    data = lib.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"{lib}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = headers[shstrndx][4]
    for h in headers:
        end = data.index(b"\0", strtab_off + h[0])
        if data[strtab_off + h[0]:end].decode() == name:
            return data[h[4]:h[4] + h[5]]
    return None


def bundle_targets(fatbin: bytes) -> list[list[str]]:
    """The targets of each offload bundle in a .hip_fatbin section (the linker concatenates one
    bundle per object, each aligned): header = magic, u64 entries, then per entry u64 offset,
    u64 size, u64 triple length, triple."""
    bundles = []
    at = fatbin.find(BUNDLE_MAGIC)
    while at >= 0:
        pos = at + len(BUNDLE_MAGIC)
        count, = struct.unpack_from("<Q", fatbin, pos)
        pos += 8
        targets = []
        for _ in range(count):
            _offset, _size, length = struct.unpack_from("<QQQ", fatbin, pos)
            pos += 24
            targets.append(fatbin[pos:pos + length].decode())
            pos += length
        bundles.append(targets)
        at = fatbin.find(BUNDLE_MAGIC, pos)
    return bundles


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--arch", required=True)
    p.add_argument("--code-objects", type=int, required=True)
    p.add_argument("--hip-runtime", type=Path, required=True)
    p.add_argument("--torch-lib", type=Path, required=True)
    p.add_argument("--host-only-object", type=Path, required=True)
    a = p.parse_args()
    errors: list[str] = []

    libs = needed(a.library)
    for want in (a.hip_runtime.name if ".so." in a.hip_runtime.name else "libamdhip64.so",
                 "libtorch_cpu.so", "libc10.so"):
        if not any(n == want or n.startswith(want) for n in libs):
            errors.append(f"does not need {want} (NEEDED: {libs})")

    fatbin = section(a.library, ".hip_fatbin")
    if fatbin is None:
        errors.append("no .hip_fatbin section: no device code")
    else:
        bundles = bundle_targets(fatbin)
        device = f"hipv4-amdgcn-amd-amdhsa--{a.arch}"
        if len(bundles) != a.code_objects:
            errors.append(f"{len(bundles)} offload bundles, expected {a.code_objects}")
        for i, targets in enumerate(bundles):
            gpu = [t for t in targets if not t.startswith("host-")]
            if gpu != [device]:
                errors.append(f"bundle {i} holds {gpu}, expected [{device}] only")
        print(f"{len(bundles)} code objects, all {device}")

    providers = [a.hip_runtime, a.torch_lib / "libtorch_cpu.so", a.torch_lib / "libc10.so"]
    for name in SYSTEM_LIBS:
        found = [d / name for d in (Path("/lib/x86_64-linux-gnu"), Path("/usr/lib/x86_64-linux-gnu"))
                 if (d / name).exists()]
        if not found:
            errors.append(f"system library {name} not found")
        providers += found[:1]
    defined = set()
    for lib in providers:
        defined |= {name for _, name in dynamic_symbols(lib, "defined")}
    undefined = [(t, n) for t, n in dynamic_symbols(a.library, "undefined") if t not in ("w", "v")]
    left = sorted({n for _, n in undefined} - defined)
    unexpected = [n for n in left if n not in TORCH_GPU_SHIM]
    if unexpected:
        errors.append(f"undefined symbols no needed library defines: {unexpected}")
    for sibling in ("libtorch_hip.so", "libtorch_cuda.so"):
        path = a.torch_lib / sibling
        if path.exists():
            have = {name for _, name in dynamic_symbols(path, "defined")}
            missing = sorted(set(left) - have)
            if missing:
                errors.append(f"{sibling} does not define {missing}")
            else:
                print(f"torch's GPU symbols {left} are defined by {sibling}")
            break
    print(f"{len(undefined)} undefined symbols, {len(left)} left to torch's GPU library: {left}")

    exported = [n for _, n in dynamic_symbols(a.library, "defined")]
    if exported:
        errors.append(f"exports {len(exported)} symbols, e.g. {exported[:3]}")

    if section(a.host_only_object, ".hip_fatbin") is not None:
        errors.append(f"{a.host_only_object.name} carries device code (a .hip_fatbin section)")

    for e in errors:
        print(f"FAIL {a.library.name}: {e}", file=sys.stderr)
    if not errors:
        print(f"{a.library.name}: OK")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
