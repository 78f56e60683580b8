#!/usr/bin/env bash
# Session 51 call d: bundle of exp/graph-cluster at 131c (automatic graph clusters only of
# sizes that hold a whole wave). The graph test; W1-W6 graph plans x1 and x4, auto against
# off; the extras at x4 both ways and at x1 auto (call c had x1 both ways on 131b). On an
# H200, first W1-W6 side by side with fi_decode_tc.
cd "$(dirname "$0")/../.."
R=/tmp/s51d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51d-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
if grep -q H200 $R/gpu.txt; then
  # The issues' standing on an H200, first: W1-W6 side by side with fi_decode_tc.
  W=$R/w; mkdir -p $W
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  timeout 40 $B bench --jsonl $W/raw-1.jsonl --env-json $W/env.json > $R/bench-1.log 2>&1; save "bench rc $?"
fi
timeout 120 $T decode/cuda_graph > $R/test-cuda_graph.log 2>&1; save "test rc $?"
for g in 1 4; do
  for c in auto off; do
    timeout 60 $B bench --graph-plan $g --graph-cluster $c > $R/c-g$g-$c.log 2>&1
    save "x$g cluster $c rc $?"
  done
done
for c in auto off; do
  timeout 120 $B bench --graph-plan 4 --graph-cluster $c --workload-file target/bundle/workloads-extra.toml > $R/x-g4-$c.log 2>&1
  save "extras x4 cluster $c rc $?"
done
timeout 120 $B bench --graph-plan 1 --workload-file target/bundle/workloads-extra.toml > $R/x-g1-auto.log 2>&1; save "extras x1 auto rc $?"
