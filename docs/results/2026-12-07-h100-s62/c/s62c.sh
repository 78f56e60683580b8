#!/usr/bin/env bash
# Session 62 call c: the fp8 80-112 kv-head-pair rule's boundary (c62.toml: T = 8 rows at 31-186
# tiles per SM, U = 16 rows), auto against `--kv-pairs on`, two rounds, `check` on the forced
# pairs first; then r141.toml (call a's shapes) under the new rule (auto now pairs them).
# Build: `cargo xtask bundle` (main with PAIR_FP8_WIDE_MIN_TILES_PER_SM), `rm -rf
# target/bundle/ptx`, this as target/bundle/callc.sh, c62.toml and r141.toml beside it;
# carry ["target/bundle", ".peers"] (.peers: a copy of ../shared/peers, for the H200 branch).
. "$(dirname "$0")/call-lib.sh" s62c
F=target/bundle/c62.toml
# On an H200 (none came in sessions 55-62 so far): W1-W6 beside fi_decode_tc first, two rounds.
if is_h200 && [ -d .peers ]; then
  W=$R/w; peers_w $W
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-w-$round.log 2>&1; save "bench W $round rc $?"
  done
fi
timeout 60 $B check --workload-file $F --kv-pairs on > $R/check-c62-on.log 2>&1; save "check c62 on rc $? ($(grep -c PASS $R/check-c62-on.log) PASS, $(grep -c FAIL $R/check-c62-on.log) FAIL)"
for round in 1 2; do
  ben c62-auto-$round $F 60
  ben c62-on-$round $F 60 --kv-pairs on
done
ben r141-auto target/bundle/r141.toml 60
ben c62-off-1 $F 60 --kv-pairs off
