#!/usr/bin/env bash
# Session 60 call d: change 140 after its fix (no wgmma / paired-tile variant in the pair
# view): the pair case, both sweeps (fp8-d64 cases take the automatic pairs), the graph case;
# c/pairs2.toml auto / on / off; memcheck, racecheck and initcheck on the pair case. Copy as
# target/bundle/call.sh with pairs2.toml beside it; carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s60d
tcase() { timeout "$2" $T "$1" > $R/t-$(echo $1 | tr '/' '_').log 2>&1; save "$1 rc $? ($(grep -E 'passed,' $R/t-$(echo $1 | tr '/' '_').log))"; }
tcase decode/kv_head_pairs 120
grep -E "FAIL|case [0-9]+:|panicked" $R/t-decode_kv_head_pairs.log | head -20 >> $R/steps.log
tcase decode/fp8_sweep 120
tcase decode/sweep_dims 90
tcase decode/cuda_graph_replay 60
ben() { # TAG ARGS
  local tag=$1; shift
  timeout 60 $B bench --workload-file target/bundle/pairs2.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
ben auto-1
ben on-1 --kv-pairs on
ben off-1 --kv-pairs off
ben auto-2
sanitize memcheck decode/kv_head_pairs
sanitize racecheck decode/kv_head_pairs
sanitize initcheck decode/kv_head_pairs
