#!/usr/bin/env bash
# Session 49 call c: compute-sanitizer over GPU suite cases of the bundle of calls a-b (exp/125b
# + the embedded sm_90a cubin; kernels of session 42), case by case within the call's time:
# memcheck first (cheap cases first), then racecheck and synccheck on the consumer variants.
# FF_LONG_KV=640 as `run.sh sanitize` does. Before them, main's plans (`--plan-dram-tbps 4.9167`)
# of six one-CTA-per-SM head-dim-256 shapes past one wave (call a: on an H100 balanced plans of
# such shapes lost 4 of 6 times), automatic against `--balance off`, two rounds.
cd "$(dirname "$0")/../.."
R=/tmp/s49c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-400}
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s49c-logs.tgz" .); }
nvidia-smi --query-gpu=name --format=csv,noheader > $R/gpu.txt 2>&1; save gpu
one() { # tool filter
  local rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 20 ] || return 1
  local log=$R/$1-$(echo "$2" | tr '/' '_').log
  FF_LONG_KV=640 timeout $rem "$CS" --tool $1 --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests "$2" > $log 2>&1
  save "$1 $2 rc $? ($(grep -E 'passed,|ERROR SUMMARY|RACECHECK SUMMARY' $log | tr '\n' ' '))"
}
S=D00,D07,D09,R26,R02,R05
for round in $( [ -n "${SKIP_BAL:-}" ] || echo 1 2); do
  for bal in auto off; do
    timeout 60 target/bundle/ferroflash bench --workload-file target/bundle/diff46.toml --workloads $S --rot-gib 0.5 --plan-dram-tbps 4.9167 --balance $bal > $R/bench-bal-$bal-$round.log 2>&1; save "bench balance $bal round $round rc $?"
  done
done
for f in prim/ decode/fp8_quick decode/empty decode/cluster_merge_m32 decode/wgmma_consumer decode/paired decode/narrow decode/cluster_merge_against decode/early_kv decode/cuda_graph decode/hnd decode/row_split decode/combine_parts; do
  one memcheck $f || break
done
for f in decode/fp8_quick decode/cluster_merge_m32 decode/wgmma_consumer decode/paired decode/narrow; do
  one racecheck $f || break
done
one synccheck decode/wgmma_consumer
one synccheck decode/cluster_merge_m32
