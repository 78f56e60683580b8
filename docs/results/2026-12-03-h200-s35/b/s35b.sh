#!/usr/bin/env bash
# s35b: change 108 as merged (paired fp8 `_m8p` where the blocks fill at most 0.8 of the
# four-CTA wave). (1) W1-W6 side by side: fi_decode_tc, then ferroflash bench with the peers'
# env; (2) the narrow fp8 shapes (fp8n.toml, cal.toml, X5-X7): fi_decode_tc, then ferroflash
# (automatic) and session 33's binary, two rounds; (3) memcheck and racecheck on the quick fp8
# test; (4) the whole suite in the remaining time.
cd "$(dirname "$0")/../.."
R=/tmp/s35b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s35b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 80 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
Q=$R/peers; mkdir -p $Q
cat target/bundle/fp8n.toml target/bundle/cal.toml > $R/fp8-all.toml
P=target/bundle/fp8-peers.toml
OUT=$Q PHASES="fi_decode_tc:80" FLASHINFER_DISABLE_JIT=1 timeout 90 bash .peers/run_device.sh --workload-file $P > $R/peers-fp8.log 2>&1; save "peers fp8 rc $?"
G="--rot-gib 0.5"
for round in 1 2; do
  for b in new main; do
    E=$B; [ $b = main ] && E=$M
    timeout 90 $E bench $G --workload-file $R/fp8-all.toml > $R/fp8-$b-r$round.log 2>&1; save "fp8 $b r$round rc $?"
    timeout 40 $E bench $G --workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7 > $R/x-$b-r$round.log 2>&1; save "x $b r$round rc $?"
  done
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests fp8_quick > $R/memcheck-fp8.log 2>&1; save "memcheck rc $?"
FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests fp8_quick > $R/racecheck-fp8.log 2>&1; save "racecheck rc $?"
rem=$((590 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
