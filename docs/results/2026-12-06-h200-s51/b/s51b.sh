#!/usr/bin/env bash
# Session 51 call b: bundle of exp/graph-cluster (main + 130 + 131). 1. The graph test (now
# with clustered grids) and the paired test. 2. Change 131: graph plans (capacity x1, x4) with
# the grid in clusters where the capacity's own batch would merge in them (`--graph-cluster
# auto`) against none (`off`, session 50's graph plans); W2, W5, W6 two rounds, W1, W3, W4 one.
# 3. Change 130 with clusters off: W5 and the fp8 extras, paired by the rule (auto) against
# `_m8` (off). 4. racecheck + memcheck of the graph test. 5. On an H200: W1-W6 side by side.
cd "$(dirname "$0")/../.."
R=/tmp/s51b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
for t in decode/cuda_graph decode/paired; do
  timeout 120 $T $t > $R/test-${t#decode/}.log 2>&1; save "test $t rc $?"
done
for round in 1 2; do
  for g in 1 4; do
    for c in auto off; do
      timeout 50 $B bench --graph-plan $g --graph-cluster $c --workloads W2,W5,W6 > $R/c-g$g-$c-$round.log 2>&1
      save "131 x$g cluster $c round $round rc $?"
      if [ $round = 1 ]; then
        timeout 50 $B bench --graph-plan $g --graph-cluster $c --workloads W1,W3,W4 > $R/c-g$g-$c-w134.log 2>&1
        save "131 W1,W3,W4 x$g cluster $c rc $?"
      fi
    done
  done
done
timeout 50 $B bench --workloads W2,W5,W6 > $R/direct.log 2>&1; save "direct rc $?"
X=X5,X6,X7,X9
for g in 1 4; do
  for p in auto off; do
    timeout 50 $B bench --graph-plan $g --graph-cluster off --paired $p --workloads W5 > $R/p-g$g-$p-w.log 2>&1
    timeout 60 $B bench --graph-plan $g --graph-cluster off --paired $p --workload-file target/bundle/workloads-extra.toml --workloads $X > $R/p-g$g-$p-x.log 2>&1
    save "130 x$g paired $p rc $?"
  done
done
timeout 100 compute-sanitizer --tool racecheck $T decode/cuda_graph > $R/racecheck.log 2>&1; save "racecheck rc $?"
timeout 100 compute-sanitizer --tool memcheck $T decode/cuda_graph > $R/memcheck.log 2>&1; save "memcheck rc $?"
if grep -q H200 $R/gpu.txt; then
  W=$R/w; mkdir -p $W
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  timeout 40 $B bench --jsonl $W/raw-1.jsonl --env-json $W/env.json > $R/bench-1.log 2>&1; save "bench rc $?"
fi
