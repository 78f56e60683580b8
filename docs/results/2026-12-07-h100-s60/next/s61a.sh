#!/usr/bin/env bash
# (Ran in session 60 as call e, with the call name s60e: docs/results/2026-12-07-h100-s60/e/.)
# Ready for session 61's first call (written in session 60). Change 140 (kv-head pairs) is
# merged; session 60's call e (its final fp8 rule on the GPU) got no machine. Steps: build
# main before change 140 (`git worktree add /tmp/base f4761ab`, `cargo xtask bundle` there,
# keep its target/bundle/ferroflash.xz as ferroflash-base.xz), then `cargo xtask bundle` on
# main, `rm -rf target/bundle/ptx`, copy this as target/bundle/call.sh with
# ../c/pairs2.toml, spills.toml and ferroflash-base.xz beside it; carry ["target/bundle"]
# (add .peers on an H200 if the tool takes the size). 1. the pair case, the fp8 sweep, the
# padded case; 2. pairs2.toml automatic (two rounds) and off; 3. spills.toml new / base (the
# unpaired `_d256p_w32` / `_w64` whose spills change 140 raised), two rounds; 4. W1-W6 (on
# an H200 beside fi_decode_tc).
. "$(dirname "$0")/call-lib.sh" s61a
BASE=target/bundle/ferroflash-base
tcase() { timeout "$2" $T "$1" > $R/t-$(echo $1 | tr '/' '_').log 2>&1; save "$1 rc $? ($(grep -E 'passed,' $R/t-$(echo $1 | tr '/' '_').log))"; }
tcase decode/kv_head_pairs 120
tcase decode/fp8_sweep 120
tcase decode/padded_head_dims 90
ben() { # TAG BIN FILE ARGS
  local tag=$1 bin=$2 file=$3; shift 3
  timeout 60 $bin bench --workload-file target/bundle/$file --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
ben pairs-auto-1 $B pairs2.toml
ben pairs-off-1 $B pairs2.toml --kv-pairs off
ben pairs-auto-2 $B pairs2.toml
for round in 1 2; do
  ben spills-new-$round $B spills.toml
  ben spills-base-$round $BASE spills.toml
done
if is_h200 && [ -d .peers ]; then
  W=$R/w; peers_w $W
  timeout 40 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench W rc $?"
else
  timeout 40 $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"
fi
