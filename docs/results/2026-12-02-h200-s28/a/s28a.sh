#!/usr/bin/env bash
# s28a: the solo kernels (one CTA per SM, 192 KiB ring, four load warps, clusters up to 16).
# Their test and the cluster-merge test; then W1/W2/W6 default against --solo, two interleaved
# rounds, with forced split counts and the combine for W1; the paged probe of a 128-CTA cut.
cd "$(dirname "$0")/../.."
R=/tmp/s28a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s28a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 120 target/bundle/gpu-tests solo_kernels > $R/test-solo.log 2>&1; save "solo test rc $?"
timeout 100 target/bundle/gpu-tests cluster_merge > $R/test-cluster.log 2>&1; save "cluster tests rc $?"
for round in 1 2; do
  timeout 60 $B bench --workloads W1,W2,W6 > $R/r$round-base.log 2>&1; save "r$round base rc $?"
  timeout 60 $B bench --workloads W1,W2,W6 --solo > $R/r$round-solo.log 2>&1; save "r$round solo rc $?"
done
timeout 40 $B bench --workloads W1 --solo --splits 16 > $R/w1-solo-s16.log 2>&1; save "w1 s16 rc $?"
timeout 40 $B bench --workloads W1 --solo --splits 16 --cluster-max 8 > $R/w1-solo-s16-c8.log 2>&1; save "w1 s16 c8 rc $?"
timeout 40 $B bench --workloads W1 --solo --splits 16 --cluster off > $R/w1-solo-s16-combine.log 2>&1; save "w1 s16 combine rc $?"
timeout 40 $B bench --workloads W1 --solo --splits 32 > $R/w1-solo-s32.log 2>&1; save "w1 s32 rc $?"
timeout 40 $B bench --workloads W2,W6 --solo --splits 2 > $R/w2-solo-s2.log 2>&1; save "w2 s2 rc $?"
timeout 40 $B bench --workloads W1,W2 --splits 16 --paged-probe > $R/probe-s16.log 2>&1; save "probe s16 rc $?"
timeout 40 $B bench --workloads W1,W2 --paged-probe > $R/probe-plan.log 2>&1; save "probe plan rc $?"
timeout 60 $B bench --workloads W1 --solo --timeline $R/tl > $R/w1-solo-timeline.log 2>&1; save "timeline rc $?"
