#!/usr/bin/env bash
# Session 42 call b: bundle = main (be261a5). (1) fi_decode_tc on the rows of seed 42 it has
# modules for (sweep42-peers.toml) and the bf16 twins (twins42.toml); (2) ferroflash bench on
# sweep42.toml and twins42.toml (--rot-gib 0.5) with the peers' env; (3) W1-W6 once more.
cd "$(dirname "$0")/../.."
R=/tmp/s42b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s42b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
Q=$R/peers; mkdir -p $Q
cat target/bundle/sweep42-peers.toml target/bundle/twins42.toml > $R/peers-all.toml
OUT=$Q PHASES="fi_decode_tc:120" FLASHINFER_DISABLE_JIT=1 timeout 140 bash .peers/run_device.sh --workload-file $R/peers-all.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 200 $B bench --workload-file target/bundle/sweep42.toml --rot-gib 0.5 --env-json $Q/env.json > $R/bench-sweep42.log 2>&1; save "bench rc $?"
timeout 100 $B bench --workload-file target/bundle/twins42.toml --rot-gib 0.5 --env-json $Q/env.json > $R/bench-twins42.log 2>&1; save "bench twins rc $?"
rem=$((560 - (SECONDS - start)))
[ $rem -gt 45 ] && { timeout $rem $B bench --env-json $Q/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"; }
