#!/usr/bin/env bash
# s18f: the session's final main (6a8b2fd): the GPU suite, racecheck on the narrow test, W1-W6.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 150 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FF_LONG_KV=640 timeout 40 $CS --tool racecheck --error-exitcode 3 --print-limit 20 ./gpu-tests decode/narrow > "$OUT/racecheck.log" 2>&1; echo "racecheck rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 60 ./ferroflash bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/bench.log" 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
