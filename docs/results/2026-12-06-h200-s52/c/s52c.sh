#!/usr/bin/env bash
# Session 52 call c (never ran: the session's device time ran out): main. Single-request MQA
# shapes around sweep52's R18 (fi_decode_tc 9.0 us against our 10.2 on call b's H100):
# fi_decode_tc, then ours with forced split counts against auto, to see whether the split
# model's pick (49 splits for R18) is the fastest on these small grids. Copy this script and
# small52.toml to target/bundle/ (as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s52c
Q=$R/q; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 70 bash .peers/run_device.sh --workload-file target/bundle/small52.toml > $R/peers-q.log 2>&1; save "peers rc $?"
for round in 1 2; do
  for s in auto 13 25 49 65 97; do
    timeout 30 $B bench --workload-file target/bundle/small52.toml --rot-gib 0.5 --splits $s --env-json $Q/env.json > $R/bench-s$s-$round.log 2>&1; save "bench splits $s round $round rc $?"
  done
done
