#!/usr/bin/env bash
# Session 60 call c: change 140 (kv-head pairs, branch exp/140-kv-head-pairs). 1. the pair
# case and the graph case; 2.
# pairs2.toml with --kv-pairs off / auto / on, and main's binary (ferroflash-base), two
# rounds; 3. W1-W6 on both binaries. Copy as target/bundle/call.sh with pairs2.toml and
# ferroflash-base.xz beside it; carry ["target/bundle"]. 4. the padded case and both
# sweeps, then memcheck and racecheck on the pair case, while time remains.
. "$(dirname "$0")/call-lib.sh" s60c
BASE=target/bundle/ferroflash-base
tcase() { timeout "$2" $T "$1" > $R/t-$(echo $1 | tr '/' '_').log 2>&1; save "$1 rc $? ($(grep -E 'passed,' $R/t-$(echo $1 | tr '/' '_').log))"; }
tcase decode/kv_head_pairs 120
grep -E "FAIL|case [0-9]+:" $R/t-decode_kv_head_pairs.log | head -20 >> $R/steps.log
tcase decode/cuda_graph_replay 60
ben() { # TAG BIN ARGS
  local tag=$1 bin=$2; shift 2
  timeout 60 $bin bench --workload-file target/bundle/pairs2.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
for round in 1 2; do
  ben off-$round $B --kv-pairs off
  ben auto-$round $B
  ben on-$round $B --kv-pairs on
  ben base-$round $BASE
done
for x in new base; do
  bin=$B; [ $x = base ] && bin=$BASE
  rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 45 ] && { timeout 40 $bin bench --rot-gib 2 > $R/bench-w-$x.log 2>&1; save "bench W $x rc $?"; }
done
tcase decode/padded_head_dims 90
tcase decode/fp8_sweep 90
tcase decode/sweep_dims 90
sanitize memcheck decode/kv_head_pairs
sanitize racecheck decode/kv_head_pairs
