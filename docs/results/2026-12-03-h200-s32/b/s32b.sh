#!/usr/bin/env bash
# s32b: the build of call a (the unused `row_bytes` removed; no code change). (1) 40 new random
# shapes (seed 32, sweep32.toml, drawn by docs/results/2026-12-01-h200-s25/gen_sweep.py 32):
# ferroflash check, then bench (--rot-gib 0.5); bf16 twins of six f16 / f16-q rows
# (twins32.toml): check and bench; (2) fi_decode_tc on the 12 sweep rows it has modules for
# (sweep32-peers.toml) and on the twins; (3) W1-W6 side by side: fi_decode_tc, then ferroflash
# bench with the peers' env.
cd "$(dirname "$0")/../.."
R=/tmp/s32b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s32b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 100 $B check --workload-file target/bundle/sweep32.toml > $R/check-sweep32.log 2>&1; save "check rc $?"
timeout 40 $B check --workload-file target/bundle/twins32.toml > $R/check-twins32.log 2>&1; save "check twins rc $?"
timeout 150 $B bench --workload-file target/bundle/sweep32.toml --rot-gib 0.5 > $R/bench-sweep32.log 2>&1; save "bench rc $?"
timeout 50 $B bench --workload-file target/bundle/twins32.toml --rot-gib 0.5 > $R/bench-twins32.log 2>&1; save "bench twins rc $?"
Q=$R/peers; mkdir -p $Q
cat target/bundle/sweep32-peers.toml target/bundle/twins32.toml > $R/peers-all.toml
OUT=$Q PHASES="fi_decode_tc:80" FLASHINFER_DISABLE_JIT=1 timeout 90 bash .peers/run_device.sh --workload-file $R/peers-all.toml > $R/peers.log 2>&1; save "peers rc $?"
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 80 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
