#!/usr/bin/env bash
# Session 51 call c: bundle of exp/graph-cluster at 131b (a clustered graph grid keeps one
# wave past the capacity's blocks instead of max(blocks + wave, 3 waves)). The graph test;
# graph plans x1 and x4 with `--graph-cluster auto` against `off` on W1-W6, two rounds; the
# extras at x1 both ways; direct plans for reference.
cd "$(dirname "$0")/../.."
R=/tmp/s51c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
timeout 120 $T decode/cuda_graph > $R/test-cuda_graph.log 2>&1; save "test rc $?"
timeout 50 $B bench > $R/direct.log 2>&1; save "direct rc $?"
for round in 1 2; do
  for g in 1 4; do
    for c in auto off; do
      timeout 60 $B bench --graph-plan $g --graph-cluster $c > $R/c-g$g-$c-$round.log 2>&1
      save "x$g cluster $c round $round rc $?"
    done
  done
done
for c in auto off; do
  timeout 120 $B bench --graph-plan 1 --graph-cluster $c --workload-file target/bundle/workloads-extra.toml > $R/x-g1-$c.log 2>&1
  save "extras cluster $c rc $?"
done
