#!/usr/bin/env bash
# s18b: early release of the stage (V fragments read right after S; change 77): the GPU suite,
# racecheck on the sweeps, then W1-W6 new / base (main 2fdf63d) in two rounds, extras.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 150 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 ./gpu-tests decode/fp8_quick > "$OUT/racecheck.log" 2>&1; echo "racecheck fp8 rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 ./gpu-tests decode/sweep_dims >> "$OUT/racecheck.log" 2>&1; echo "racecheck sweep rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
for r in 1 2; do
timeout 80 ./ferroflash bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/new$r.log" 2>&1; echo "new$r rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 80 ./ab/base bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/base$r.log" 2>&1; echo "base$r rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
