#!/usr/bin/env bash
# Session 44 call a: bundle = change 124 (formula work items; row-split `_w` variants read the list). (1) the new GPU test and the
# plan-shape tests; (2) W1-W6 with --uniform-work auto / off, interleaved, two rounds; (3) the
# extra workloads (W7, X1-X12) auto / off once; (4) memcheck and racecheck of the new test.
cd "$(dirname "$0")/../.."
R=/tmp/s44a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s44a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 90 $T formula > $R/t-formula.log 2>&1; save "formula rc $?"
timeout 90 $T splits1_equals > $R/t-splits.log 2>&1; save "splits rc $?"
timeout 90 $T cluster_merge_against > $R/t-cluster.log 2>&1; save "cluster rc $?"
for r in 1 2; do
  for u in auto off; do
    timeout 70 $B bench --uniform-work $u > $R/w-$u-$r.log 2>&1; save "w $u $r rc $?"
  done
done
for u in auto off; do
  timeout 80 $B bench --workload-file target/bundle/workloads-extra.toml --uniform-work $u > $R/x-$u.log 2>&1; save "x $u rc $?"
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  rem=$((570 - (SECONDS - start)))
  [ $rem -gt 20 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 $T formula > $R/$tool-formula.log 2>&1; save "$tool rc $?"; }
done
