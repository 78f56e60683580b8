#!/usr/bin/env bash
# Session 60 call e: change 140 with the fp8 row rule: the pair case and the fp8 sweep;
# c/pairs2.toml auto (two rounds) and off; W1-W6. Copy as target/bundle/call.sh with
# pairs2.toml beside it; carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s60e
tcase() { timeout "$2" $T "$1" > $R/t-$(echo $1 | tr '/' '_').log 2>&1; save "$1 rc $? ($(grep -E 'passed,' $R/t-$(echo $1 | tr '/' '_').log))"; }
tcase decode/kv_head_pairs 120
tcase decode/fp8_sweep 120
ben() { # TAG ARGS
  local tag=$1; shift
  timeout 60 $B bench --workload-file target/bundle/pairs2.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
ben auto-1
ben off-1 --kv-pairs off
ben auto-2
timeout 40 $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"
