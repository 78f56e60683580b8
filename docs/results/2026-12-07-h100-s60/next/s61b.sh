#!/usr/bin/env bash
# Ready for session 61 (written in session 60): change 141 (branch exp/141-fp8-d256p, not yet
# run on a GPU). Build: `cargo xtask bundle` on main, keep target/bundle/ferroflash.xz as
# ferroflash-base.xz; `git checkout exp/141-fp8-d256p` (rebased on main), `cargo xtask bundle`,
# `rm -rf target/bundle/ptx`, copy this as target/bundle/call.sh with fp8d256p.toml and
# ferroflash-base.xz beside it; carry ["target/bundle"]. Expectations: expect-141.md.
. "$(dirname "$0")/call-lib.sh" s61b
BASE=target/bundle/ferroflash-base
tcase decode/kv_head_pairs 120
grep -E "FAIL|case [0-9]+:|panicked" $R/t-decode_kv_head_pairs.log | head -20 >> $R/steps.log
tcase decode/padded_head_dims 120
grep -E "FAIL|case [0-9]+:|panicked" $R/t-decode_padded_head_dims.log | head -20 >> $R/steps.log
ben() { # TAG BIN ARGS
  local tag=$1 bin=$2; shift 2
  timeout 60 $bin bench --workload-file target/bundle/fp8d256p.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
for round in 1 2; do
  ben new-$round $B
  ben off-$round $B --kv-pairs off
  ben base-$round $BASE --workloads F1,F2,F3,F4,F6  # (main refuses F5, F7)
done
ben hnd $B --kv-layout hnd
sanitize memcheck decode/kv_head_pairs
sanitize racecheck decode/kv_head_pairs
sanitize memcheck decode/padded_head_dims
timeout 40 $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"
