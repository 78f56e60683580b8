#!/usr/bin/env bash
# s37b: change 110, deep first fill (experiment): with early K/V tiles, each load warp that
# finds its ring full before the dependency bulk-prefetches the next PAGE_ID_LEAD tiles of
# older rows into L2 (`FF_DEEP_FILL=1` sets `early_kv = 2`; same binary both ways).
# (1) W1/W2/W5/W6 off/on, two interleaved rounds; W3/W4, X5-X7 once; (2) the early-K/V test,
# fp8_quick and the cluster tests with it on, memcheck on early_kv; (3) timelines W2/W5/W1 on.
cd "$(dirname "$0")/../.."
R=/tmp/s37b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
for round in 1 2; do
  timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w-off-r$round.log 2>&1; save "w off r$round rc $?"
  FF_DEEP_FILL=1 timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w-on-r$round.log 2>&1; save "w on r$round rc $?"
done
timeout 60 $B bench --workloads W3,W4 > $R/w34-off.log 2>&1; save "w34 off rc $?"
FF_DEEP_FILL=1 timeout 60 $B bench --workloads W3,W4 > $R/w34-on.log 2>&1; save "w34 on rc $?"
timeout 40 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7 > $R/x-off.log 2>&1; save "x off rc $?"
FF_DEEP_FILL=1 timeout 40 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7 > $R/x-on.log 2>&1; save "x on rc $?"
FF_DEEP_FILL=1 timeout 40 $B bench --workloads W2,W5,W1 --timeline $R/tl-on > $R/tl-on.log 2>&1; save "tl on rc $?"
timeout 40 $B bench --workloads W2,W5,W1 --timeline $R/tl-off > $R/tl-off.log 2>&1; save "tl off rc $?"
FF_DEEP_FILL=1 timeout 90 target/bundle/gpu-tests early_kv > $R/t-early.log 2>&1; save "test early rc $?"
FF_DEEP_FILL=1 timeout 90 target/bundle/gpu-tests fp8_quick > $R/t-fp8.log 2>&1; save "test fp8 rc $?"
FF_DEEP_FILL=1 timeout 90 target/bundle/gpu-tests cluster > $R/t-cluster.log 2>&1; save "test cluster rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_DEEP_FILL=1 timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv > $R/memcheck-early.log 2>&1; save "memcheck early rc $?"
