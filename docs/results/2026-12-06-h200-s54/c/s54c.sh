#!/usr/bin/env bash
# Session 54 call c (main at change 132): 1. mt54.toml with the new planner (auto) against the
# old rule's two m tiles (--m-tiles 2). 2. The whole GPU suite. 3. A second A/B round and
# W1-W6 (no plan changes there) as time allows. Copy this script and ../b/mt54.toml to
# target/bundle/ (as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s54c
M=target/bundle/mt54.toml
ab() { for mt in auto 2; do
    [ $((SECONDS-start)) -lt $((LIMIT-15)) ] || return
    timeout 15 $B bench --workload-file $M --rot-gib 0.5 --m-tiles $mt > $R/bench-$mt-$1.log 2>&1; save "bench m-tiles $mt round $1 rc $?"
  done; }
ab 1
ST=$((LIMIT - (SECONDS-start) - 35)); timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log)) in ${ST}s"
ab 2
[ $((SECONDS-start)) -lt $((LIMIT-15)) ] && { timeout 15 $B bench > $R/bench-w.log 2>&1; save "bench w rc $?"; }
