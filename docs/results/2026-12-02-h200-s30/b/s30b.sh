#!/usr/bin/env bash
# s30b: patch 99b (the `_d256_g64` schedule P·V(t) then S(t+1) back to back on the tensor pipe,
# stage t released when P·V(t) completes, softmax(t+1) after). The wgmma test, d256.toml auto
# (g64) / --wgmma off (w64 reference) / auto, the D-file bench.
cd "$(dirname "$0")/../.."
R=/tmp/s30b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30b-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests wgmma_consumer > $R/test-wgmma.log 2>&1; save "wgmma test rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --workloads R02,R20 > $R/d256-r1-g64.log 2>&1; save "d256 r1 g64 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --workloads R02,R20 --wgmma off > $R/d256-r1-w64.log 2>&1; save "d256 r1 w64 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --workloads R02,R20 > $R/d256-r2-g64.log 2>&1; save "d256 r2 g64 rc $?"
timeout 70 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 > $R/rand-bench.log 2>&1; save "rand bench rc $?"
