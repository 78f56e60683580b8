#!/usr/bin/env bash
# s18a: column-split P·V (change 76) + fp8 _g64 merged: the GPU suite, then W1-W6 new / base
# (main 2fdf63d), then extras on the new build.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 200 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 100 ./ferroflash bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/bench.log" 2>&1; echo "new rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 100 ./ab/base bench --workloads W1,W2,W3,W4,W5,W6 >> "$OUT/bench.log" 2>&1; echo "base rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 90 ./ferroflash bench --workload-file workloads-extra.toml --workloads W7,X1,X2,X8,X10,X12 >> "$OUT/bench.log" 2>&1; echo "extra rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
