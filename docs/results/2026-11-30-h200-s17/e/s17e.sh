#!/usr/bin/env bash
# s17e: the combine kernel with packed rows split by multiply-high and rcp.approx (change 73)
# against main 13ee826 on the combine workloads W1, W7, X4, two rounds; the combine tests.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
for r in 1 2; do
  for b in main2 comb; do
    echo "== round $r $b t=$((SECONDS-start))"
    timeout 60 ./ab/$b bench --workloads W1 | grep -v '^device\|^workload'
    timeout 60 ./ab/$b bench --workload-file workloads-extra.toml --workloads W7,X4 | grep -v '^device\|^workload\|^ceil'
  done
done > "$OUT/ab.log" 2>&1
for t in decode/splits1 decode/combine_parts decode/cuda_graph decode/bad_tensors decode/empty decode/nan decode/sweep_dims; do
  timeout 120 ./gpu-tests $t >> "$OUT/tests.log" 2>&1; echo "$t rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
