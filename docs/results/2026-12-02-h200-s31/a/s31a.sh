#!/usr/bin/env bash
# s31a: the session-30 final build (changes 100 + 101). (1) 40 new random shapes (seed 31,
# sweep31.toml, drawn by docs/results/2026-12-01-h200-s25/gen_sweep.py 31): ferroflash check,
# then bench (--rot-gib 0.5); (2) fi_decode_tc on the 17 it has modules for
# (sweep31-peers.toml); (3) the GPU suite on this build (it had not run on it).
cd "$(dirname "$0")/../.."
R=/tmp/s31a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s31a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 110 $B check --workload-file target/bundle/sweep31.toml > $R/check-sweep31.log 2>&1; save "check rc $?"
Q=$R/peers; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:70" FLASHINFER_DISABLE_JIT=1 timeout 80 bash .peers/run_device.sh --workload-file target/bundle/sweep31-peers.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 190 $B bench --workload-file target/bundle/sweep31.toml --rot-gib 0.5 > $R/bench-sweep31.log 2>&1; save "bench rc $?"
timeout 190 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
