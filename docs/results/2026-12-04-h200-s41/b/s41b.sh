#!/usr/bin/env bash
# Session 41 call b: bundle = main with 120b merged. (1) W1-W6 side by side: fi_decode_tc,
# then ferroflash bench twice with the peers' env; (2) ferroflash check on 40 new random shapes
# (seed 41, sweep41.toml) and their bf16 twins (twins41.toml); (3) the whole GPU suite.
cd "$(dirname "$0")/../.."
R=/tmp/s41b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s41b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
timeout 90 $B check --workload-file target/bundle/sweep41.toml > $R/check-sweep41.log 2>&1; save "check sweep rc $?"
timeout 50 $B check --workload-file target/bundle/twins41.toml > $R/check-twins41.log 2>&1; save "check twins rc $?"
rem=$((590 - (SECONDS - start)))
timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
