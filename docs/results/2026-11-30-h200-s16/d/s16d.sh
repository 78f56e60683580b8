#!/usr/bin/env bash
# s16d: the combine's first partial-O batch issued before phase 1 (change 69) vs main; combine tests
# and sanitizers.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/main16.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
for r in 1 2; do
  for b in ab/main16 ferroflash; do
    echo "== round $r $b"
    timeout 60 ./$b bench --workloads W1,W2 | grep -v '^device'
    timeout 60 ./$b bench --workload-file workloads-extra.toml --workloads W7 | grep -v '^device\|^ceil\|^workload'
    timeout 60 ./$b bench --workloads W5 --cluster off | grep -v '^device\|^ceil\|^workload'
  done
done > "$OUT/ab.log" 2>&1
for t in decode/combine_parts decode/splits1 decode/nan_inf decode/cuda_graph decode/empty decode/hnd; do
  timeout 90 ./gpu-tests $t >> "$OUT/tests.log" 2>&1; echo "$t rc $?" >> "$OUT/steps.log"
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  FF_LONG_KV=640 timeout 100 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests decode/combine_parts > "$OUT/$tool.log" 2>&1
  echo "$tool rc $?" >> "$OUT/steps.log"
done
