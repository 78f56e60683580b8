#!/usr/bin/env bash
# Session 52 call c: main. Single-request MQA shapes around sweep52's R18 (fi_decode_tc 9.0 us
# against our 10.2 on call b's H100): fi_decode_tc, then ours with forced split counts against
# auto, one round (the session's device time nearly spent), to see whether the split model's pick is the fastest on these small grids.
cd "$(dirname "$0")/../.."
R=/tmp/s52c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s52c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
Q=$R/q; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 70 bash .peers/run_device.sh --workload-file target/bundle/small52.toml > $R/peers-q.log 2>&1; save "peers rc $?"
for round in 1; do
  for s in auto 13 25 49 65 97; do
    timeout 30 $B bench --workload-file target/bundle/small52.toml --rot-gib 0.5 --splits $s --env-json $Q/env.json > $R/bench-s$s-$round.log 2>&1; save "bench splits $s round $round rc $?"
  done
done
