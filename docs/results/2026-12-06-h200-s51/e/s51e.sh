#!/usr/bin/env bash
# Session 51 call e: main at 131d (cluster group read where used). The graph test, then graph
# plans x1 auto of W2, W5, W6 and X3, X8, X9 (calls c-d: W6 91.8-92.0, X3 58.1-58.3, X8 92.8).
cd "$(dirname "$0")/../.."
R=/tmp/s51e; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s51e-logs.tgz" .); }
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt 2>&1; save gpu
timeout 60 $T decode/cuda_graph > $R/test-cuda_graph.log 2>&1; save "test rc $?"
timeout 40 $B bench --graph-plan 1 --workloads W2,W5,W6 > $R/w.log 2>&1; save "w rc $?"
timeout 50 $B bench --graph-plan 1 --workload-file target/bundle/workloads-extra.toml --workloads X3,X8,X9 > $R/x.log 2>&1; save "x rc $?"
