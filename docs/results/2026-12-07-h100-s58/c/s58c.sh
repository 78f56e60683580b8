#!/usr/bin/env bash
# Session 58 call c (branch exp/138-pad-skip): change 138's padded case, `check`, an A/B
# against call a's ferroflash (carried as ferroflash-base.xz; exp/137 with its flag off), the
# last suite cases call a did not reach, soak, sanitizers; in order of need (the tool may cut it). Copy as target/bundle/call.sh with
# ../a/padfp8.toml and ../a/padded.toml beside it; carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s58c
timeout 60 $T padded > $R/t-padded.log 2>&1; save "padded rc $? ($(grep -E 'passed,' $R/t-padded.log))"
for f in padfp8 padded; do
  timeout 40 $B check --workload-file target/bundle/$f.toml > $R/check-$f.log 2>&1; save "check $f rc $? ($(grep -c PASS $R/check-$f.log) PASS)"
done
ab() { # ROUND
  for x in base new; do
    BIN=$B; [ $x = base ] && BIN=target/bundle/ferroflash-base
    for f in padfp8 padded; do
      timeout 45 $BIN bench --workload-file target/bundle/$f.toml --rot-gib 1 > $R/bench-$f-$x$1.log 2>&1; save "bench $f $x$1 rc $?"
    done
  done
}
ab 1
sanitize memcheck decode/padded
timeout 60 $T timeline > $R/t-timeline.log 2>&1; save "timeline rc $? ($(grep -E 'passed,' $R/t-timeline.log))"
timeout 60 $T back_to_back > $R/t-b2b.log 2>&1; save "back_to_back rc $? ($(grep -E 'passed,' $R/t-b2b.log))"
ab 2
[ $((SECONDS-start)) -lt $((LIMIT-90)) ] && { FF_SOAK_LAUNCHES=3000 timeout 80 $T soak > $R/soak.log 2>&1; save "soak rc $? ($(grep -E 'passed,' $R/soak.log))"; }
sanitize racecheck decode/padded
sanitize initcheck decode/padded
