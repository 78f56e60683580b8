#!/usr/bin/env bash
# Session 62 call c, lean (device time nearly spent): c62 auto / on, one round each, r141 auto,
# then W1-W6 once.
. "$(dirname "$0")/call-lib.sh" s62c
F=target/bundle/c62.toml
timeout 40 $B check --workload-file $F --kv-pairs on > $R/check-c62-on.log 2>&1; save "check c62 on rc $? ($(grep -c PASS $R/check-c62-on.log) PASS, $(grep -c FAIL $R/check-c62-on.log) FAIL)"
ben c62-auto-1 $F 40
ben c62-on-1 $F 40 --kv-pairs on
ben c62-off-1 $F 40 --kv-pairs off
ben r141-auto target/bundle/r141.toml 40
timeout 40 $B bench > $R/bench-w-1.log 2>&1; save "bench W rc $?"
