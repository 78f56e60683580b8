#!/usr/bin/env bash
# Session 50 call a (branch exp/graph-parts: main + `bench --graph-plan N` + the graph-mode combine's
# column parts per batch; kernels of session 42, embedded sm_90a cubin).
# 1. Side by side on W1-W6: fi_decode_tc (shared/peers), then ours, two rounds, and W7.
# 2. Graph-mode plans (DecodePlan::for_graphs + update: the fixed grid of up to three waves, the
#    combine kernel, unpaired fp8 tiles), never timed before: W1-W7 with capacity = the batch
#    (x1) and 4x the batch (x4), interleaved with the direct plans above.
# 3. Balanced plans past one wave of one-CTA-per-SM head-dim-256 shapes, auto vs --balance off.
# 4. memcheck on suite cases with what time is left.
cd "$(dirname "$0")/../.."
R=/tmp/s50a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-570}
B=target/bundle/ferroflash
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s50a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
for round in 1 2; do
  timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
  timeout 40 $B bench --graph-plan 1 --jsonl $W/raw-g1-$round.jsonl --env-json $W/env.json > $R/bench-g1-$round.log 2>&1; save "bench graph x1 $round rc $?"
done
timeout 40 $B bench --graph-plan 4 --env-json $W/env.json > $R/bench-g4.log 2>&1; save "bench graph x4 rc $?"
timeout 40 $B bench --graph-plan 16 --workloads W1,W2,W5 --env-json $W/env.json > $R/bench-g16.log 2>&1; save "bench graph x16 rc $?"
timeout 40 $B bench --graph-plan 16 --workloads W1 --combine-parts 1 --env-json $W/env.json > $R/bench-g16-parts1.log 2>&1; save "bench graph x16 parts 1 rc $?"
timeout 40 $B bench --graph-plan 1 --workloads W1,W3 --timeline $R/tl-g1 --env-json $W/env.json > $R/bench-tl-g1.log 2>&1; save "bench timeline graph x1 rc $?"
timeout 40 $B bench --workloads W1,W3 --timeline $R/tl-direct --env-json $W/env.json > $R/bench-tl-direct.log 2>&1; save "bench timeline direct rc $?"
timeout 30 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
timeout 30 $B bench --graph-plan 1 --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7-g1.log 2>&1; save "bench w7 graph x1 rc $?"
S=D00,D07,D09,R26,R02,R05
for round in 1 2; do
  for bal in auto off; do
    timeout 45 $B bench --workload-file target/bundle/diff46.toml --workloads $S --rot-gib 0.5 --env-json $W/env.json --balance $bal > $R/bench-bal-$bal-$round.log 2>&1; save "bench balance $bal round $round rc $?"
  done
done
one() { # tool filter
  local rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 20 ] || return 1
  local log=$R/$1-$(echo "$2" | tr '/' '_').log
  FF_LONG_KV=640 timeout $rem "$CS" --tool $1 --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests "$2" > $log 2>&1
  save "$1 $2 rc $? ($(grep -E 'passed,|ERROR SUMMARY|RACECHECK SUMMARY' $log | tr '\n' ' '))"
}
timeout 120 target/bundle/gpu-tests decode/cuda_graph > $R/suite-cuda_graph.log 2>&1; save "suite cuda_graph rc $? ($(grep -E 'passed,' $R/suite-cuda_graph.log))"
for f in decode/cuda_graph decode/paired decode/narrow decode/cluster_merge_against decode/early_kv decode/hnd decode/row_split decode/combine_parts; do
  one memcheck $f || break
done
