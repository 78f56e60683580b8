#!/usr/bin/env bash
# Session 49 call b: same bundle as call a (exp/125b + the embedded sm_90a cubin; its H200 plans
# are main's). Side by side on W1-W6: fi_decode_tc (shared/peers), then `ferroflash bench`
# with the cubin and with FF_JIT_PTX=1 (the driver's JIT of the PTX), interleaved, two rounds
# each, then W7. The cubin path's parity with the PTX path is the point on any GPU.
cd "$(dirname "$0")/../.."
R=/tmp/s49b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s49b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
for round in 1 2; do
  timeout 70 $B bench --jsonl $W/raw-cubin-$round.jsonl --env-json $W/env.json > $R/bench-cubin-$round.log 2>&1; save "bench cubin $round rc $?"
  FF_JIT_PTX=1 timeout 80 $B bench --env-json $W/env.json > $R/bench-ptx-$round.log 2>&1; save "bench ptx $round rc $?"
done
timeout 40 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
