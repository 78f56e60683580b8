#!/usr/bin/env bash
# s24d: the final build (one module per entry, change 88) under the sanitizers: the soak (10,000
# random launches over every variant, each kernel loaded on first use); memcheck on the whole
# GPU suite (sweeps' long length 640, FF_LONG_KV); racecheck on the split-merge and consumer
# tests. Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s24d; mkdir -p $R
for f in target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s24d-logs.tgz" .); }
FF_SOAK_LAUNCHES=10000 timeout 90 target/bundle/gpu-tests soak > $R/soak.log 2>&1; save "soak rc $?"
FF_LONG_KV=640 timeout 250 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests > $R/memcheck-suite.log 2>&1; save "memcheck suite rc $?"
for t in cluster_merge row_split splits1 combine_parts; do
  FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
