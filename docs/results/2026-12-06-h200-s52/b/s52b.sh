#!/usr/bin/env bash
# Session 52 call b: main at "closing note: housekeeping". An eighth random draw (seed 52 of
# docs/results/2026-12-01-h200-s25/gen_sweep.py, 40 shapes): `ferroflash check` on all of them,
# then side by side with fi_decode_tc on the 22 rows it has prebuilt modules for (W1-W6 first
# on an H200).
cd "$(dirname "$0")/../.."
R=/tmp/s52b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s52b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W; Q=$R/q; mkdir -p $Q
if grep -q H200 $R/gpu.txt; then
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  timeout 40 $B bench --jsonl $W/raw-1.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
fi
timeout 150 $B check --workload-file target/bundle/sweep52.toml > $R/check-sweep52.log 2>&1; save "check rc $?"
OUT=$Q PHASES="fi_decode_tc:150" FLASHINFER_DISABLE_JIT=1 timeout 160 bash .peers/run_device.sh --workload-file target/bundle/sweep52-peers.toml > $R/peers-q.log 2>&1; save "peers q rc $?"
rem=$((585 - (SECONDS - start)))
[ $rem -gt 30 ] && { timeout $rem $B bench --workload-file target/bundle/sweep52-peers.toml --rot-gib 0.5 --env-json $Q/env.json --jsonl $Q/raw.jsonl > $R/bench-sweep52.log 2>&1; save "bench sweep rc $?"; }
[ -f $Q/raw.jsonl ] && python3 .peers/bench_decode.py --out $Q --report > $R/report-q.log 2>&1; save "report rc $?"
