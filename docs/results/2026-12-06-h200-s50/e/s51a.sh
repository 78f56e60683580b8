#!/usr/bin/env bash
# Prepared in session 50 for the next session (branch exp/graph-paired: main + graph plans apply
# the paired-fp8-tile rule to the capacity's blocks, change 130; built and CPU-tested, not run).
# Bundle of exp/graph-paired; carry ["target/bundle"]. Graph plans of the fp8 shapes, paired by
# the rule (auto) against `--paired off` (main's graph plans: always `_m8`), capacity x1, x4,
# x16, two rounds; the direct plans for reference; bench's check gives each row's rel err
# against the float64 reference (the graph test is bf16 only).
cd "$(dirname "$0")/../.."
R=/tmp/s51a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51a-logs.tgz" .); }
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt 2>&1; save gpu
S=W5; X=X5,X6,X7,X9
timeout 40 $B bench --workloads $S > $R/direct-w.log 2>&1
timeout 60 $B bench --workload-file target/bundle/workloads-extra.toml --workloads $X > $R/direct-x.log 2>&1; save direct
for round in 1 2; do
  for g in 1 4 16; do
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
