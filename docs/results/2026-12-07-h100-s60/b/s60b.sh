#!/usr/bin/env bash
# Session 60 call b: the bound of kv-head pairs (pairs.toml), NHD and HND pages, two rounds.
# Copy as target/bundle/call.sh with pairs.toml beside it; carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s60b
for round in 1 2; do
  for lay in nhd hnd; do
    timeout 60 $B bench --workload-file target/bundle/pairs.toml --rot-gib 1 --kv-layout $lay > $R/bench-$lay-$round.log 2>&1; save "bench $lay $round rc $?"
  done
done
