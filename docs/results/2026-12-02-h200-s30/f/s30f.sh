#!/usr/bin/env bash
# s30f: the final build: change 100 (two load warps at head dim 256, `_g64` and the row-split
# variants) with one load warp per CTA whose tiles go by TMA (its full barriers expect one
# warp; the others return). d256.toml (R02 was 3% slower in calls d/e with both warps on TMA
# CTAs), the D-file bench and check, X3/X8/X10/X11/X12 and W2, the GPU suite, memcheck on the
# wgmma and TMA tests, racecheck on the TMA test.
cd "$(dirname "$0")/../.."
R=/tmp/s30f; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30f-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests tma > $R/test-tma.log 2>&1; save "tma test rc $?"
timeout 70 $B bench --workload-file target/bundle/d256.toml > $R/d256.log 2>&1; save "d256 rc $?"
timeout 70 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 > $R/rand-bench.log 2>&1; save "rand bench rc $?"
timeout 50 $B check --workload-file target/bundle/d256-rand.toml > $R/rand-check.log 2>&1; save "rand check rc $?"
timeout 60 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X3,X8,X10,X11,X12 > $R/x.log 2>&1; save "x rc $?"
timeout 30 $B bench --workloads W2 > $R/w2.log 2>&1; save "w2 rc $?"
timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma > $R/memcheck-tma.log 2>&1; save "memcheck tma rc $?"
FF_LONG_KV=640 timeout 30 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
FF_LONG_KV=640 timeout 80 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma > $R/racecheck-tma.log 2>&1; save "racecheck tma rc $?"
