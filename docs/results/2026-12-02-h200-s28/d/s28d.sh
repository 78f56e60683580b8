#!/usr/bin/env bash
# s28d: the final build: the graph-replay test (its 16-token case now pins 64-row CTAs) and
# the small shapes of session 26 under the automatic plans.
cd "$(dirname "$0")/../.."
R=/tmp/s28d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s28d-logs.tgz" .); }
timeout 90 target/bundle/gpu-tests cuda_graph > $R/test-graph.log 2>&1; save "graph test rc $?"
timeout 60 target/bundle/ferroflash bench --workload-file target/bundle/small.toml --rot-gib 0.5 > $R/small.log 2>&1; save "small rc $?"
