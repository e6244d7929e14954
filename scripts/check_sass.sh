#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200 (or wherever cuobjdump runs): every TMA + WGMMA kernel in a binary must use the FP8
# tensor-core instruction QGMMA and no HMMA (the FP16 path the portable mma.sync kernels lower
# to). Prints one line per kernel; exits 1 if any kernel breaks the rule or none is found.
#   usage: bash scripts/check_sass.sh <binary>
set -uo pipefail
bin=$1
cuobjdump -sass "$bin" | awk '
  /Function : / { name = $3; wgmma = (name ~ /WarpSpecializedGemmKernel/ && name !~ /SplitKReduce/) }
  wgmma && /QGMMA/ { q[name]++ }
  wgmma && /HMMA/  { h[name]++ }
  wgmma { seen[name] = 1 }
  END {
    bad = 0; n = 0
    for (k in seen) {
      n++
      printf "%s QGMMA %d HMMA %d\n", substr(k, 1, 160), q[k], h[k]
      if (q[k] == 0 || h[k] > 0) bad = 1
    }
    if (n == 0) { print "no WarpSpecializedGemmKernel in the binary"; bad = 1 }
    exit bad
  }'
