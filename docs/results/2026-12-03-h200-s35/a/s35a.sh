#!/usr/bin/env bash
# s35a: change 108 (paired fp8 tiles as their own `_m8p` entries beside the four-CTA `_m8`
# ones, the planner choosing by the split model) against session 33's binary. The paired,
# narrow and fp8 GPU tests and `check` on the fp8 shapes; two interleaved rounds (--rot-gib 0.5)
# of W2/W5, X5-X7 and fp8n.toml (new automatic against session 33) and of cal.toml with
# `--paired on` and `--paired off`; memcheck and racecheck on the paired test between them.
cd "$(dirname "$0")/../.."
R=/tmp/s35a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s35a-logs.tgz" .); }
timeout 90 target/bundle/gpu-tests paired > $R/test-paired.log 2>&1; save "test paired rc $?"
timeout 60 target/bundle/gpu-tests narrow > $R/test-narrow.log 2>&1; save "test narrow rc $?"
timeout 90 target/bundle/gpu-tests fp8 > $R/test-fp8.log 2>&1; save "test fp8 rc $?"
timeout 60 $B check --workload-file target/bundle/fp8n.toml > $R/check-fp8n.log 2>&1; save "check fp8n rc $?"
timeout 60 $B check --workload-file target/bundle/cal.toml > $R/check-cal.log 2>&1; save "check cal rc $?"
timeout 30 $B check --workloads W5 > $R/check-w5.log 2>&1; save "check w5 rc $?"
G="--rot-gib 0.5"
X="--workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7"
F="--workload-file target/bundle/fp8n.toml"
C="--workload-file target/bundle/cal.toml"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for round in 1 2; do
  if [ $round = 2 ]; then
    timeout 70 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests paired > $R/memcheck-paired.log 2>&1; save "memcheck rc $?"
    timeout 90 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests paired > $R/racecheck-paired.log 2>&1; save "racecheck rc $?"
  fi
  for b in new main; do
    E=$B; [ $b = main ] && E=$M
    timeout 40 $E bench $G --workloads W2,W5 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
    timeout 40 $E bench $G $X > $R/x-$b-r$round.log 2>&1; save "x $b r$round rc $?"
    timeout 50 $E bench $G $F > $R/f-$b-r$round.log 2>&1; save "f $b r$round rc $?"
  done
  for p in on off; do
    timeout 60 $B bench $G $C --paired $p > $R/c-$p-r$round.log 2>&1; save "c $p r$round rc $?"
  done
done
