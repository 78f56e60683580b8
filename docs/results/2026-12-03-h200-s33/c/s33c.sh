#!/usr/bin/env bash
# s33c: change 105 with its epilogue staged in the Q tile and stage_q's thread index laundered.
# A/B (two interleaved rounds, --rot-gib 0.5): persist.toml with --persistent on / off and
# session 32's binary; W1, W2, W5, W6 new / main; then the new test, memcheck and racecheck on
# it, ferroflash check on persist.toml, and the whole GPU suite (last: the call's limit may cut it).
cd "$(dirname "$0")/../.."
R=/tmp/s33c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s33c-logs.tgz" .); }
W="--workload-file target/bundle/persist.toml --rot-gib 0.5"
for round in 1 2; do
  timeout 60 $B bench $W --persistent on > $R/bench-on-r$round.log 2>&1; save "on r$round rc $?"
  timeout 60 $B bench $W --persistent off > $R/bench-off-r$round.log 2>&1; save "off r$round rc $?"
  timeout 60 $M bench $W > $R/bench-main-r$round.log 2>&1; save "main r$round rc $?"
done
for round in 1 2; do
  for b in main new; do
    X=$B; [ $b = main ] && X=$M
    timeout 60 $X bench --workloads W1,W2,W5,W6 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
  done
done
timeout 60 target/bundle/gpu-tests persistent_ctas > $R/test-persistent.log 2>&1; save "test rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 100 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests persistent_ctas > $R/racecheck-persistent.log 2>&1; save "racecheck rc $?"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests persistent_ctas > $R/memcheck-persistent.log 2>&1; save "memcheck rc $?"
timeout 60 $B check --workload-file target/bundle/persist.toml > $R/check-persist.log 2>&1; save "check rc $?"
timeout 300 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
