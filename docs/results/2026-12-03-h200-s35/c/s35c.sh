#!/usr/bin/env bash
# s35c: the whole GPU suite on the build of call b (change 108 as merged; call b's suite ran out
# of time), then C7 and C8 of cal.toml (not reached in call b) against session 33's binary.
cd "$(dirname "$0")/../.."
R=/tmp/s35c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s35c-logs.tgz" .); }
timeout 260 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
C="--rot-gib 0.5 --workload-file target/bundle/cal.toml --workloads C7,C8"
for b in new main; do
  E=$B; [ $b = main ] && E=$M
  rem=$((300 - (SECONDS - start)))
  [ $rem -gt 10 ] && { timeout $rem $E bench $C > $R/c78-$b.log 2>&1; save "c78 $b rc $?"; }
done
