#!/usr/bin/env bash
# Session 39 call b: bundle = main 8b8cc71 (change 116 merged; `ferroflash`, `gpu-tests`),
# ferroflash-pre.xz (main before 116, 6e7b76d). (1) W1-W6 side by side:
# fi_decode_tc, then main with the peers' env, twice; (2) pre / main on workloads-extra.toml;
# (3) memcheck and racecheck of combine_parts on main;
# (4) pre / main on workloads-d256.toml as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s39b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; X=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s39b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
for b in pre main; do
  E=$B-$b; [ $b = main ] && E=$B
  timeout 130 $E bench --workload-file $X > $R/x-$b.log 2>&1; save "x $b rc $?"
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  rem=$((580 - (SECONDS - start)))
  [ $rem -gt 30 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests combine_parts > $R/$tool-combine_parts.log 2>&1; save "$tool combine_parts rc $?"; }
done
for b in pre main; do
  E=$B-$b; [ $b = main ] && E=$B
  rem=$((585 - (SECONDS - start)))
  [ $rem -gt 20 ] && { timeout $rem $E bench --workload-file target/bundle/workloads-d256.toml > $R/d256-$b.log 2>&1; save "d256 $b rc $?"; }
done
