#!/usr/bin/env bash
# s18e: the fused cluster merge (change 79): suite, racecheck + memcheck on the cluster tests,
# then new / main (65f0bea) in two rounds on the cluster workloads.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 150 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck memcheck; do
FF_LONG_KV=640 timeout 60 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests decode/cluster_merge > "$OUT/$tool.log" 2>&1; echo "$tool rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
for r in 1 2; do
for b in ./ferroflash ./ab/main; do
timeout 45 $b bench --workloads W1,W2,W5,W6 | grep "^W" >> "$OUT/ab.log" 2>&1; echo "$b W rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 45 $b bench --workload-file workloads-extra.toml --workloads X2,X3,X8 | grep "^X" >> "$OUT/ab.log" 2>&1; echo "$b X rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
done
