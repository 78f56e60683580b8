#!/usr/bin/env bash
# Session 44 call b: bundle = main (code of 4bc6651). (1) fi_decode_tc on W1-W6, then on W7 and
# the rows of a new random draw (seed 44) it has modules for; (2) ferroflash bench on W1-W6 twice
# and W7 with the peers' env; (3) ferroflash check on all 40 shapes of seed 44 and bench on the
# peers' rows (--rot-gib 0.5).
cd "$(dirname "$0")/../.."
R=/tmp/s44b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s44b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
W=$R/w; mkdir -p $W; Q=$R/q; mkdir -p $Q
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
cat target/bundle/w7.toml target/bundle/sweep44-peers.toml > $R/peers-q.toml
OUT=$Q PHASES="fi_decode_tc:120" FLASHINFER_DISABLE_JIT=1 timeout 130 bash .peers/run_device.sh --workload-file $R/peers-q.toml > $R/peers-q.log 2>&1; save "peers q rc $?"
timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
timeout 40 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
timeout 100 $B check --workload-file target/bundle/sweep44.toml > $R/check-sweep44.log 2>&1; save "check rc $?"
rem=$((585 - (SECONDS - start)))
[ $rem -gt 30 ] && { timeout $rem $B bench --workload-file target/bundle/sweep44-peers.toml --rot-gib 0.5 --env-json $W/env.json > $R/bench-sweep44.log 2>&1; save "bench sweep rc $?"; }
