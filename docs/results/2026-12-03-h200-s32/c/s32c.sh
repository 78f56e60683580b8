#!/usr/bin/env bash
# s32c: change 103 (the last-wave split of one-CTA-per-SM plans). ferroflash check on
# lastwave.toml and R20/D09; A/B bench (two interleaved rounds) of call b's binary
# (ferroflash-main) and this one on lastwave.toml, R20, D09 (--rot-gib 0.5) and W2; the GPU
# suite.
cd "$(dirname "$0")/../.."
R=/tmp/s32c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle/ferroflash-main.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s32c-logs.tgz" .); }
timeout 60 $B check --workload-file target/bundle/lastwave.toml > $R/check-lastwave.log 2>&1; save "check lw rc $?"
timeout 40 $B check --workload-file target/bundle/workloads-d256.toml --workloads R20,D09 > $R/check-d256.log 2>&1; save "check d256 rc $?"
for round in 1 2; do
  for b in main new; do
    X=$B; [ $b = main ] && X=$M
    timeout 40 $X bench --workload-file target/bundle/lastwave.toml --rot-gib 0.5 > $R/lw-$b-r$round.log 2>&1; save "lw $b r$round rc $?"
    timeout 30 $X bench --workload-file target/bundle/workloads-d256.toml --workloads R20,D09 --rot-gib 0.5 > $R/d256-$b-r$round.log 2>&1; save "d256 $b r$round rc $?"
  done
done
timeout 30 $B bench --workloads W2 > $R/w2.log 2>&1; save "w2 rc $?"
timeout 220 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
