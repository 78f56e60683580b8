#!/usr/bin/env bash
# s30d: change 100 (two load warps for `_d256_g64`; TMA tiles issued by load warp 0 alone, the
# page-id rings sized per warp). The wgmma test, R02/R20 and the D-file (bench, check), the
# d128 `_g64` and four-load-warp shapes X3/X8/X10/X11/X12, the GPU suite, memcheck on the wgmma
# and TMA tests, racecheck on the wgmma test.
cd "$(dirname "$0")/../.."
R=/tmp/s30d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30d-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests wgmma_consumer > $R/test-wgmma.log 2>&1; save "wgmma test rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --workloads R02,R20 > $R/d256.log 2>&1; save "d256 rc $?"
timeout 70 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 --timeline $R/tl > $R/rand-bench.log 2>&1; save "rand bench rc $?"
timeout 50 $B check --workload-file target/bundle/d256-rand.toml > $R/rand-check.log 2>&1; save "rand check rc $?"
timeout 60 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X3,X8,X10,X11,X12 > $R/x.log 2>&1; save "x rc $?"
timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma > $R/memcheck-tma.log 2>&1; save "memcheck tma rc $?"
FF_LONG_KV=640 timeout 120 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
