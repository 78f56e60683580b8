#!/usr/bin/env bash
# Session 52 call d (for a later session; not run): graph plans of a capacity 4 x the batch are
# planned for the capacity's batch, which needs no cluster, so they keep the combine (session
# 51). Always-on clusters of 4 (`--graph-cluster 4`) against auto, W1-W6 and the extras at x4,
# two rounds; on an H200, W1-W6 side by side with fi_decode_tc first. Copy this script to
# target/bundle/call.sh, carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s52d
W=$R/w; mkdir -p $W
if is_h200; then
  peers_w $W
  timeout 40 $B bench --jsonl $W/raw-1.jsonl --env-json $W/env.json > $R/bench-1.log 2>&1; save "bench rc $?"
fi
for round in 1 2; do
  for c in auto 4; do
    timeout 60 $B bench --graph-plan 4 --graph-cluster $c > $R/w-g4-$c-$round.log 2>&1; save "W x4 cluster $c round $round rc $?"
    timeout 120 $B bench --graph-plan 4 --graph-cluster $c --workload-file target/bundle/workloads-extra.toml > $R/x-g4-$c-$round.log 2>&1; save "extras x4 cluster $c round $round rc $?"
  done
done
