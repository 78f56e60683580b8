#!/usr/bin/env bash
# Session 49 call a (same as session 48 call b, which was refused): bundle = exp/125b (main + change 125, `--plan-dram-tbps`) with the sm_90a
# cubin embedded (FF_CUBIN=1, new this session: kernels load without the driver's JIT).
# Both GPUs: the GPU suite first (the cubin path's check; its first case loads every kernel).
# On an H100: then the A/B of diff46.toml (the shapes whose plan 125 changes on an H100),
# interleaved rounds of `--plan-dram-tbps 4.9167` (the old plans) and the default (125),
# --rot-gib 0.5, until the time is spent.
# On an H200 (or with MODE=parity): then W1-W6 with the cubin and with FF_JIT_PTX=1 (the PTX path), interleaved.
cd "$(dirname "$0")/../.."
R=/tmp/s49a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
LIMIT=${LIMIT:-570}
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s49a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
timeout ${SUITE_S:-200} target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
if [ "${MODE:-}" = parity ] || grep -q H200 $R/gpu.txt; then
  for round in 1 2; do
    rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 60 ] || break
    timeout 60 $B bench > $R/bench-cubin-$round.log 2>&1; save "bench cubin $round rc $?"
    rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 60 ] || break
    FF_JIT_PTX=1 timeout 60 $B bench > $R/bench-ptx-$round.log 2>&1; save "bench ptx $round rc $?"
  done
  exit 0
fi
cp target/bundle/diff46.toml $R/diff.toml
left=6
for round in 1 2 3; do
  for bw in 4.9167 default; do
    rem=$(( (LIMIT - (SECONDS - start)) / left )); left=$((left - 1)); [ $rem -gt 15 ] || break 2
    a=""; [ $bw = default ] || a="--plan-dram-tbps $bw"
    timeout $rem $B bench --workload-file $R/diff.toml --rot-gib 0.5 $a > $R/bench-$bw-$round.log 2>&1; save "bench $bw round $round rc $?"
  done
done
