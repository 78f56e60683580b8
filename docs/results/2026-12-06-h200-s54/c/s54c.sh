#!/usr/bin/env bash
# Session 54 call c (main at change 132): 1. the whole GPU suite. 2. mt54.toml with the new
# planner (auto) against the old rule's two m tiles (--m-tiles 2), interleaved. 3. W1-W6 (no
# plan changes there). Copy this script and ../b/mt54.toml to target/bundle/ (as call.sh), carry
# ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s54c
ST=$((LIMIT < 220 ? LIMIT - 20 : 200)); timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
M=target/bundle/mt54.toml
for round in 1 2; do
  for mt in auto 2; do
    [ $((SECONDS-start)) -lt $((LIMIT-30)) ] || break
    timeout 30 $B bench --workload-file $M --rot-gib 0.5 --m-tiles $mt > $R/bench-$mt-$round.log 2>&1; save "bench m-tiles $mt round $round rc $?"
  done
done
[ $((SECONDS-start)) -lt $((LIMIT-25)) ] && { timeout 25 $B bench > $R/bench-w.log 2>&1; save "bench w rc $?"; }
