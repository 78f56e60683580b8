#!/usr/bin/env bash
# Session 52 call a: main at "closing note: housekeeping" (130 + 131d merged). 1. On an H200,
# W1-W6 side by side with fi_decode_tc, two rounds of ours, W7. 2. The whole GPU suite on the
# merged build (not run in session 51). 3. memcheck / racecheck on suite cases with the time left.
cd "$(dirname "$0")/../.."
R=/tmp/s52a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-570}
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s52a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
if grep -q H200 $R/gpu.txt; then
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
  done
  timeout 30 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
else
  timeout 40 $B bench > $R/bench-1.log 2>&1; save "bench rc $?"
fi
timeout 240 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
one() { # tool filter
  local rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 20 ] || return 1
  local log=$R/$1-$(echo "$2" | tr '/' '_').log
  FF_LONG_KV=640 timeout $rem "$CS" --tool $1 --error-exitcode 3 --print-limit 20 $T "$2" > $log 2>&1
  save "$1 $2 rc $? ($(grep -E 'passed,|ERROR SUMMARY|RACECHECK SUMMARY' $log | tr '\n' ' '))"
}
for f in decode/cuda_graph decode/paired decode/cluster_merge_against decode/narrow decode/early_kv decode/row_split; do
  one racecheck $f || break
  one memcheck $f || break
done
