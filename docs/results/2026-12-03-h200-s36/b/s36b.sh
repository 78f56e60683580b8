#!/usr/bin/env bash
# s36b: early K/V tiles as the default (`early_kv`, the combine releasing the next call before
# its wait). (1) the new test and memcheck/racecheck on it; (2) W1-W6 side by side:
# fi_decode_tc, then ferroflash bench with the peers' env (default: early on), then
# `--early-kv off`, W1/W2/W5/W6 on/off once more; (3) the whole suite (every case with the
# default, early on; the soak draws it at random).
cd "$(dirname "$0")/../.."
R=/tmp/s36b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s36b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 60 target/bundle/gpu-tests early_kv > $R/early.log 2>&1; save "early test rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv > $R/memcheck-early.log 2>&1; save "memcheck early rc $?"
timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv > $R/racecheck-early.log 2>&1; save "racecheck early rc $?"
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 80 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
timeout 80 $B bench --early-kv off > $R/bench-w-off.log 2>&1; save "bench w off rc $?"
for e in on off; do
  timeout 40 $B bench --workloads W1,W2,W5,W6 --early-kv $e > $R/w-$e.log 2>&1; save "w $e rc $?"
done
timeout 30 $B bench --workloads W1 --timeline $R/tl-on > $R/tl-on.log 2>&1; save "tl on rc $?"
rem=$((570 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
