#!/usr/bin/env bash
# s29b: change 98 (three 64 KiB stages for `_d256_g64`). d256.toml auto / --wgmma off (the
# w64 reference, as call a), R02/R20 under --balance on and --splits 2, X3/X11/X10/X12 (the
# d128 `_g64` kernels, generic code touched by change 97), the wgmma test, and the wgmma test
# under compute-sanitizer memcheck and racecheck.
cd "$(dirname "$0")/../.."
R=/tmp/s29b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s29b-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests wgmma_consumer > $R/test-wgmma.log 2>&1; save "wgmma test rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml > $R/d256-r1-g64.log 2>&1; save "d256 r1 g64 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --wgmma off > $R/d256-r1-w64.log 2>&1; save "d256 r1 w64 rc $?"
timeout 40 $B bench --workload-file target/bundle/r20.toml > $R/r20-auto.log 2>&1; save "r20 auto rc $?"
timeout 40 $B bench --workload-file target/bundle/r20.toml --balance on > $R/r20-bal.log 2>&1; save "r20 bal rc $?"
timeout 40 $B bench --workload-file target/bundle/r20.toml --splits 2 > $R/r20-s2.log 2>&1; save "r20 s2 rc $?"
timeout 50 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X3,X10,X11,X12 > $R/x-g64.log 2>&1; save "x g64 rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 120 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck rc $?"
FF_LONG_KV=640 timeout 200 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck rc $?"
