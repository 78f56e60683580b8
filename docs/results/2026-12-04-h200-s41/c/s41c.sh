#!/usr/bin/env bash
# Session 41 call c: bundle = main with 120b merged (call b's). (1) ferroflash bench on the 40
# random shapes of seed 41 (sweep41.toml) and their bf16 twins (twins41.toml), --rot-gib 0.5;
# (2) fi_decode_tc on the 13 sweep rows it has modules for (sweep41-peers.toml) and the twins.
cd "$(dirname "$0")/../.."
R=/tmp/s41c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s41c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
Q=$R/peers; mkdir -p $Q
cat target/bundle/sweep41-peers.toml target/bundle/twins41.toml > $R/peers-all.toml
OUT=$Q PHASES="fi_decode_tc:120" FLASHINFER_DISABLE_JIT=1 timeout 130 bash .peers/run_device.sh --workload-file $R/peers-all.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 200 $B bench --workload-file target/bundle/sweep41.toml --rot-gib 0.5 --env-json $Q/env.json > $R/bench-sweep41.log 2>&1; save "bench rc $?"
timeout 100 $B bench --workload-file target/bundle/twins41.toml --rot-gib 0.5 --env-json $Q/env.json > $R/bench-twins41.log 2>&1; save "bench twins rc $?"
