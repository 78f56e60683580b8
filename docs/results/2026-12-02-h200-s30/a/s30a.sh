#!/usr/bin/env bash
# s30a: patch 99 (the `_d256_g64` overlapped schedule: S(t+1) in flight with P·V(t)). The wgmma
# and TMA tests, d256.toml auto (g64) / --wgmma off (the w64 reference, as s29 calls a-c) in two
# interleaved rounds, the D-file (d256-rand.toml, s29 call d) bench and check, fi_decode_tc on its
# bf16 rows (d256-rand-peers.toml), and memcheck on the wgmma test.
cd "$(dirname "$0")/../.."
R=/tmp/s30a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30a-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests wgmma_consumer > $R/test-wgmma.log 2>&1; save "wgmma test rc $?"
timeout 60 target/bundle/gpu-tests tma > $R/test-tma.log 2>&1; save "tma test rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml > $R/d256-r1-g64.log 2>&1; save "d256 r1 g64 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml --wgmma off > $R/d256-r1-w64.log 2>&1; save "d256 r1 w64 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml > $R/d256-r2-g64.log 2>&1; save "d256 r2 g64 rc $?"
timeout 70 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 > $R/rand-bench.log 2>&1; save "rand bench rc $?"
OUT=$R/peers PHASES="fi_decode_tc:45" FLASHINFER_DISABLE_JIT=1 timeout 55 bash .peers/run_device.sh --workload-file target/bundle/d256-rand-peers.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 50 $B check --workload-file target/bundle/d256-rand.toml > $R/rand-check.log 2>&1; save "rand check rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 120 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck rc $?"
