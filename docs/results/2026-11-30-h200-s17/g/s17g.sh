#!/usr/bin/env bash
# s17g: the fp8 _g64 (stages widened to f16 in shared memory, then the wgmma consumer; branch
# experiment/fp8-g64): its test cases, X10/X12 against main 13ee826, the fp8 sweep, racecheck.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 60 ./gpu-tests decode/wgmma > "$OUT/wgmma.log" 2>&1; echo "wgmma rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 50 ./ferroflash bench --workload-file workloads-extra.toml --workloads X10,X12 > "$OUT/bench.log" 2>&1; echo "new rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 50 ./ab/main2 bench --workload-file workloads-extra.toml --workloads X10,X12 >> "$OUT/bench.log" 2>&1; echo "main rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 50 ./gpu-tests decode/fp8_sweep > "$OUT/fp8sweep.log" 2>&1; echo "fp8 sweep rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FF_LONG_KV=640 timeout 50 $CS --tool racecheck --error-exitcode 3 --print-limit 20 ./gpu-tests decode/wgmma > "$OUT/racecheck.log" 2>&1
echo "racecheck rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
