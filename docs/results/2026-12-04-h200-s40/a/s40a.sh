#!/usr/bin/env bash
# Session 40 call a: bundle = main 2106c09 (change 116 merged; `ferroflash`, `gpu-tests`).
# Session 39 call b's logs were lost with its machine, so this repeats it:
# (1) W1-W6 side by side: fi_decode_tc, then ours with the peers' env (their read ceiling), twice;
# (2) memcheck and racecheck of combine_parts; (3) main on workloads-extra.toml and
# workloads-d256.toml (against earlier sessions' numbers), as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s40a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s40a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 110 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests combine_parts > $R/$tool-combine_parts.log 2>&1; save "$tool combine_parts rc $?"
done
rem=$((560 - (SECONDS - start)))
[ $rem -gt 30 ] && { timeout $rem $B bench --workload-file target/bundle/workloads-extra.toml > $R/x-main.log 2>&1; save "x main rc $?"; }
rem=$((585 - (SECONDS - start)))
[ $rem -gt 20 ] && { timeout $rem $B bench --workload-file target/bundle/workloads-d256.toml > $R/d256-main.log 2>&1; save "d256 main rc $?"; }
