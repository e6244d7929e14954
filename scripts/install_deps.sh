#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build/test dependencies of fp8gemm on Debian 12 (bookworm). Idempotent; a second run is
# a no-op that takes well under a second.
#
#  1. System packages (apt-get, only when something is missing): cmake, g++, make, ninja-build,
#     libgtest-dev, libbenchmark-dev, clang-22, lld-22, llvm-22, clang-tools-22 (clang/lld/llvm 22
#     come from bookworm-security; llvm-22 brings llvm-mca-22, which prices the K loop for the ISA
#     report; clang-tools-22 brings clang-offload-bundler, which full HIP compiles run).
#  2. The ROCm headers, amdgcn device bitcode and HIP runtime library. Debian 12's own ROCm is too
#     old (5.x, no hip_fp8.h, no gfx950), so the .debs are fetched from Debian unstable (sid) with
#     a PRIVATE apt configuration (own sources.list / lists / cache / status under $DEPS_DIR/apt;
#     the system's apt state is never touched) and unpacked with `dpkg -x` into $DEPS_DIR/rocm.
#     Nothing from sid is installed.
#  3. (CUDA builds) cuobjdump and the nvdisasm it runs, NVIDIA's SASS disassembler, which nvcc's
#     install here lacks: the PyPI wheels nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (pinned),
#     fetched with `pip download` and unpacked with python's zipfile into $DEPS_DIR/cuda-tools (one
#     bin directory: cuobjdump finds nvdisasm beside itself); nothing is installed. The ptxas tests use it to read the
#     WGMMA kernels' SASS (tests/ptxas/sass_loop_check.cpp).
#
# Environment:
#   FP8GEMM_DEPS_DIR   where the private apt state and the unpacked prefix live (default <repo>/build/deps)
#   FP8GEMM_SKIP_SYSTEM_PACKAGES=1   do not touch system packages (step 1)
#   FP8GEMM_DEBIAN_MIRROR   Debian mirror URI for sid (default: the one the system sources use)
# Prints the ROCm prefix (what cmake's FP8GEMM_ROCM_PREFIX wants) on the last line of stdout.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS_DIR="${FP8GEMM_DEPS_DIR:-$REPO/build/deps}"
PREFIX="$DEPS_DIR/rocm"
APTDIR="$DEPS_DIR/apt"

# Packages taken from sid. Versions are not pinned: whatever sid carries today (hip 6.4.x, device libs for
# llvm 21 at the time of writing). Headers, cmake files and bitcode, plus what the HIP build of the
# PyTorch ops needs beyond them: the HIP runtime library it links against (libamdhip64-6; it never
# runs here) and rocThrust's headers (with rocPRIM's), which torch's headers include under HIP.
ROCM_PKGS=(libamdhip64-dev libamdhip64-6 libhsa-runtime-dev libamd-comgr-dev rocm-device-libs-21
           librocthrust-dev librocprim-dev)
# Files that must exist in the prefix afterwards.
ROCM_CHECK=(usr/include/hip/hip_runtime.h usr/include/hip/hip_fp8.h usr/include/hip/hip_version.h
            usr/include/hsa/hsa.h usr/share/hip/version usr/lib/x86_64-linux-gnu/libamdhip64.so.6
            usr/include/thrust/complex.h)
STAMP="$PREFIX/.fp8gemm-deps-stamp"
STAMP_CONTENT="v1 ${ROCM_PKGS[*]}"

log() { printf '[install_deps] %s\n' "$*" >&2; }
die() { printf '[install_deps] ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi

# ---- 1. system packages ---------------------------------------------------------------------------
if [[ "${FP8GEMM_SKIP_SYSTEM_PACKAGES:-0}" != 1 ]]; then
  missing=()
  need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
  need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' || missing+=("$1"); }
  need_cmd cmake cmake
  need_cmd g++ g++
  need_cmd make make
  need_cmd ninja ninja-build
  need_cmd clang-format clang-format  # the test command's format check (scripts/format.sh)
  need_cmd clang++-22 clang-22
  need_cmd ld.lld-22 lld-22
  need_cmd llvm-mca-22 llvm-22
  need_cmd clang-offload-bundler-22 clang-tools-22  # full HIP compiles bundle host and device code
  need_cmd dpkg-deb dpkg
  need_pkg libgtest-dev
  need_pkg libbenchmark-dev
  if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
    need_cmd python3 python3  # step 3: pip download + zipfile
    python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
  fi
  if ((${#missing[@]})); then
    log "installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq || die "apt-get update failed"
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || die "apt-get install ${missing[*]} failed (clang-22/lld-22/llvm-22 live in bookworm-security; is it in the sources?)"
  fi
  for cmd in clang++-22 ld.lld-22 llvm-mca-22 clang-offload-bundler-22; do
    command -v "$cmd" >/dev/null 2>&1 || die "$cmd still missing after apt-get install"
  done
fi

# ---- 2. ROCm pieces from sid, unpacked ------------------------------------------------------------
have_rocm() {
  [[ -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_CONTENT" ]] || return 1
  local f
  for f in "${ROCM_CHECK[@]}"; do [[ -e "$PREFIX/$f" ]] || return 1; done
  compgen -G "$PREFIX/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode/ocml.bc" >/dev/null || return 1
}

debian_mirror() {
  if [[ -n "${FP8GEMM_DEBIAN_MIRROR:-}" ]]; then echo "$FP8GEMM_DEBIAN_MIRROR"; return; fi
  local uri=""
  # deb822 sources: the URIs of the stanza whose Suites is the plain release (not -security).
  if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
    uri=$(awk '
      /^[[:space:]]*$/ { if (u != "" && s ~ /(^|[[:space:]])(bookworm|stable|trixie|sid|unstable)([[:space:]]|$)/ && u !~ /security/) { print u; exit } u=""; s=""; next }
      /^URIs:/   { u=$2 }
      /^Suites:/ { $1=""; s=$0 }
      END { if (u != "" && s ~ /(^|[[:space:]])(bookworm|stable|trixie|sid|unstable)([[:space:]]|$)/ && u !~ /security/) print u }
    ' /etc/apt/sources.list.d/*.sources | head -n1)
  fi
  if [[ -z "$uri" ]]; then
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | awk '$1=="deb" { for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { if ($i ~ /debian\/?$/ && $i !~ /security/) { print $i; exit } } }' | head -n1)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

if have_rocm; then
  log "ROCm headers/device libs already present (stamp $STAMP)"
else
  command -v apt-get >/dev/null || die "apt-get not found: fetch ${ROCM_PKGS[*]} by hand and dpkg -x them into $PREFIX"
  MIRROR="$(debian_mirror)"
  KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
  [[ -r $KEYRING ]] || die "$KEYRING missing (package debian-archive-keyring)"
  log "fetching ${ROCM_PKGS[*]} from $MIRROR sid (private apt state in $APTDIR)"
  mkdir -p "$APTDIR"/{lists/partial,cache/archives/partial,etc/sources.list.d,etc/preferences.d,debs}
  : > "$APTDIR/status"
  echo "deb [signed-by=$KEYRING] $MIRROR sid main" > "$APTDIR/etc/sources.list"
  cat > "$APTDIR/apt.conf" <<CONF
Dir::State "$APTDIR";
Dir::State::Lists "$APTDIR/lists";
Dir::State::status "$APTDIR/status";
Dir::State::extended_states "$APTDIR/extended_states";
Dir::Cache "$APTDIR/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/sources.list.d";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/preferences.d";
Dir::Log "$APTDIR";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
CONF
  export APT_CONFIG="$APTDIR/apt.conf"
  apt-get update -qq --error-on=any >"$APTDIR/update.log" 2>&1 \
    || { cat "$APTDIR/update.log" >&2; die "apt-get update for $MIRROR sid failed"; }
  rm -f "$APTDIR"/debs/*.deb
  (cd "$APTDIR/debs" && apt-get download -qq "${ROCM_PKGS[@]}") >"$APTDIR/download.log" 2>&1 \
    || { cat "$APTDIR/download.log" >&2; die "apt-get download ${ROCM_PKGS[*]} from sid failed"; }
  unset APT_CONFIG
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  for deb in "$APTDIR"/debs/*.deb; do
    log "  unpacking $(basename "$deb")"
    dpkg-deb -x "$deb" "$PREFIX" || die "dpkg -x $deb failed"
  done
  for f in "${ROCM_CHECK[@]}"; do
    [[ -e "$PREFIX/$f" ]] || die "$f missing from the unpacked packages (package split changed in sid?)"
  done
  compgen -G "$PREFIX/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode/ocml.bc" >/dev/null \
    || die "amdgcn bitcode (ocml.bc) missing from the unpacked rocm-device-libs"
  (cd "$APTDIR/debs" && ls *.deb) > "$PREFIX/.fp8gemm-deps-packages"
  echo "$STAMP_CONTENT" > "$STAMP"
  log "ROCm pieces unpacked: $(tr '\n' ' ' < "$PREFIX/.fp8gemm-deps-packages")"
fi

# ---- 3. cuobjdump from PyPI (CUDA builds) ---------------------------------------------------------
CUDA_WHEELS=(nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)
CUDA_TOOLS="$DEPS_DIR/cuda-tools"
CUOBJDUMP="$CUDA_TOOLS/nvidia/cu13/bin/cuobjdump"
if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  if [[ -x "$CUOBJDUMP" && "$(cat "$CUDA_TOOLS/.stamp" 2>/dev/null)" == "${CUDA_WHEELS[*]}" ]]; then
    log "cuobjdump already present ($CUOBJDUMP)"
  else
    log "fetching ${CUDA_WHEELS[*]} from PyPI into $CUDA_TOOLS"
    rm -rf "$CUDA_TOOLS"
    mkdir -p "$CUDA_TOOLS/wheel"
    python3 -m pip download --no-deps --quiet --disable-pip-version-check -d "$CUDA_TOOLS/wheel" \
      "${CUDA_WHEELS[@]}" >&2 || die "pip download ${CUDA_WHEELS[*]} failed (PyPI unreachable?)"
    for whl in "$CUDA_TOOLS"/wheel/*.whl; do
      python3 -m zipfile -e "$whl" "$CUDA_TOOLS" || die "unpacking $whl failed"
    done
    chmod +x "$CUOBJDUMP" "$(dirname "$CUOBJDUMP")/nvdisasm" \
      || die "cuobjdump or nvdisasm missing from the wheels (their layout changed?)"
    "$CUOBJDUMP" --version >/dev/null || die "$CUOBJDUMP does not run"
    echo "${CUDA_WHEELS[*]}" > "$CUDA_TOOLS/.stamp"
  fi
fi

echo "$PREFIX"
