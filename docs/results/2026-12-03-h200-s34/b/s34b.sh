#!/usr/bin/env bash
# s34b: change 107 (narrow fp8 d128 consumers take the ring's tiles in pairs; six 16 KiB
# stages, two CTAs per SM) against session 33's binary. First the fp8 and narrow GPU tests and
# `check` on the fp8 shapes, then two interleaved rounds (--rot-gib 0.5) of W2, W5, X5,
# X6, X7 and fp8n.toml, memcheck and racecheck on the quick fp8 test;
# the whole suite in the call's remaining time.
cd "$(dirname "$0")/../.."
R=/tmp/s34b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s34b-logs.tgz" .); }
timeout 120 target/bundle/gpu-tests fp8 > $R/test-fp8.log 2>&1; save "test fp8 rc $?"
timeout 60 target/bundle/gpu-tests narrow > $R/test-narrow.log 2>&1; save "test narrow rc $?"
timeout 90 $B check --workload-file target/bundle/fp8n.toml > $R/check-fp8n.log 2>&1; save "check fp8n rc $?"
timeout 60 $B check --workloads W5 > $R/check-w5.log 2>&1; save "check w5 rc $?"
G="--rot-gib 0.5"
X="--workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7"
F="--workload-file target/bundle/fp8n.toml"
for round in 1 2; do
  for b in new main; do
    E=$B; [ $b = main ] && E=$M
    timeout 60 $E bench $G --workloads W2,W5 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
    timeout 60 $E bench $G $X > $R/x-$b-r$round.log 2>&1; save "x $b r$round rc $?"
    timeout 60 $E bench $G $F > $R/f-$b-r$round.log 2>&1; save "f $b r$round rc $?"
  done
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 120 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests fp8_quick > $R/memcheck-fp8.log 2>&1; save "memcheck rc $?"
FF_LONG_KV=640 timeout 120 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests fp8_quick > $R/racecheck-fp8.log 2>&1; save "racecheck rc $?"
rem=$((585 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
