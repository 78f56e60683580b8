#!/usr/bin/env bash
# Session 51 call a: bundle of exp/graph-paired (main + change 130: graph plans apply the
# paired-fp8-tile rule to the capacity's blocks). 1. On an H200 only: side by side with
# fi_decode_tc on W1-W6 (the issues' standing). 2. Graph plans of W5 and the fp8 extras
# X5-X7, X9, paired by the rule (auto) against `--paired off` (main's graph plans: `_m8`),
# capacity x1 and x4, two rounds; direct plans for reference. 3. The graph and paired tests.
cd "$(dirname "$0")/../.."
R=/tmp/s51a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
if grep -q H200 $R/gpu.txt; then
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
  done
fi
S=W5; X=X5,X6,X7,X9
timeout 40 $B bench --workloads $S > $R/direct-w.log 2>&1
timeout 60 $B bench --workload-file target/bundle/workloads-extra.toml --workloads $X > $R/direct-x.log 2>&1; save direct
for round in 1 2; do
  for g in 1 4; do
    for p in auto off; do
      timeout 40 $B bench --graph-plan $g --paired $p --workloads $S > $R/g$g-$p-w-$round.log 2>&1
      timeout 60 $B bench --graph-plan $g --paired $p --workload-file target/bundle/workloads-extra.toml --workloads $X > $R/g$g-$p-x-$round.log 2>&1
      save "graph x$g paired $p round $round"
    done
  done
done
for t in decode/cuda_graph decode/paired; do
  timeout 90 target/bundle/gpu-tests $t > $R/test-${t#decode/}.log 2>&1; save "test $t rc $?"
done
