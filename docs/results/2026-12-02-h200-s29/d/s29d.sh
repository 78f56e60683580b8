#!/usr/bin/env bash
# s29d: 10 random head-dim-256 batches past 32 rows per kv head whose keys fill the SMs
# (d256-rand.toml, gen_d256.py seed 29; the `_d256_g64` case): bench, fi_decode_tc on the same file,
# then ferroflash check.
cd "$(dirname "$0")/../.."
R=/tmp/s29d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s29d-logs.tgz" .); }
timeout 70 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 > $R/bench.log 2>&1; save "bench rc $?"
OUT=$R/peers PHASES="fi_decode_tc:45" FLASHINFER_DISABLE_JIT=1 timeout 55 bash .peers/run_device.sh --workload-file target/bundle/d256-rand.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 50 $B check --workload-file target/bundle/d256-rand.toml > $R/check.log 2>&1; save "check rc $?"
