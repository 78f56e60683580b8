#!/usr/bin/env bash
# Session 61 call d: experiment 142 (branch exp/142-fp8-d128-pairs): forced kv-head pairs on
# fp8 d128 (p142.toml), correctness by `check`, auto against on, two rounds; on an H200 also
# W1-W6 beside fi_decode_tc. Bundle: ferroflash.xz only (gpu-tests and base removed), this as
# target/bundle/call.sh with p142.toml; carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s61d
F=target/bundle/p142.toml
timeout 120 $B check --workload-file $F --kv-pairs on > $R/check-on.log 2>&1; save "check on rc $?"
for round in 1 2; do
  timeout 60 $B bench --workload-file $F --rot-gib 1 > $R/bench-auto-$round.log 2>&1; save "bench auto-$round rc $?"
  timeout 60 $B bench --workload-file $F --rot-gib 1 --kv-pairs on > $R/bench-on-$round.log 2>&1; save "bench on-$round rc $?"
done
if is_h200 && [ -d .peers ]; then
  W=$R/w; peers_w $W
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-w-$round.log 2>&1; save "bench W $round rc $?"
  done
  timeout 40 $B bench --workloads W5 --kv-pairs on --env-json $W/env.json > $R/bench-w5-on.log 2>&1; save "bench W5 on rc $?"
fi
