#!/usr/bin/env bash
# Session 61 call c: change 141 with the 168-register cap on the narrow fp8 d256 variants.
# Build: branch exp/141-fp8-d256p, `cargo xtask bundle`, rm -rf target/bundle/ptx, this as
# target/bundle/call.sh with fp8d256p.toml and ferroflash-base.xz (main) beside it.
. "$(dirname "$0")/call-lib.sh" s61c
BASE=target/bundle/ferroflash-base
tcase decode/kv_head_pairs 120
tcase decode/padded_head_dims 120
ben() { # TAG BIN ARGS
  local tag=$1 bin=$2; shift 2
  timeout 60 $bin bench --workload-file target/bundle/fp8d256p.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
for round in 1 2; do
  ben new-$round $B
  ben off-$round $B --kv-pairs off
done
ben base-1 $BASE --workloads F6
sanitize memcheck decode/padded_head_dims
if is_h200; then
  timeout 40 $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"
  timeout 40 $BASE bench --rot-gib 2 > $R/bench-w-base.log 2>&1; save "bench W base rc $?"
fi
