#!/usr/bin/env bash
# Session 49 call d (the session's last device time): bundle of main + the bench's device-side
# pool fill (one period uploaded, the rest copied on the device). `ferroflash bench` W1-W6 (its
# rel err column checks the new fill against the CPU reference; the process's wall time is the
# fill's gain: call b's took 35 s), then compute-sanitizer on suite cases while time is left.
cd "$(dirname "$0")/../.."
R=/tmp/s49d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-170}
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s49d-logs.tgz" .); }
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt 2>&1; save gpu
timeout 60 target/bundle/ferroflash bench > $R/bench.log 2>&1; save "bench rc $?"
one() { # tool filter
  local rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 10 ] || return 1
  local log=$R/$1-$(echo "$2" | tr '/' '_').log
  FF_LONG_KV=640 timeout $rem "$CS" --tool $1 --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests "$2" > $log 2>&1
  save "$1 $2 rc $? ($(grep -E 'passed,|ERROR SUMMARY|RACECHECK SUMMARY' $log | tr '\n' ' '))"
}
one memcheck prim/
one memcheck decode/wgmma_consumer
one racecheck decode/wgmma_consumer
one memcheck decode/cluster_merge_m32
one racecheck decode/cluster_merge_m32
one memcheck decode/fp8_quick
one racecheck decode/fp8_quick
one memcheck decode/empty
