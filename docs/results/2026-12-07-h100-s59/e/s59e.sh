#!/usr/bin/env bash
# Session 59 call e: the whole GPU suite on main after changes 136 and 138 (session 58 reached
# its first 38 cases only), then W1-W6 while time remains. Copy as target/bundle/call.sh;
# carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s59e
timeout $((LIMIT - 40)) $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log)) last: $(grep -E '^(PASS|FAIL|SKIP)' $R/suite.log | tail -1 | cut -c1-80)"
grep -E "^(FAIL|SKIP)" $R/suite.log | head -5 > $R/fails.txt; save "fails: $(wc -l < $R/fails.txt)"
rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 30 ] && { timeout $((rem-3)) $B bench --rot-gib 2 > $R/bench-w.log 2>&1; save "bench W rc $?"; }
