#!/usr/bin/env bash
# s34a: change 106 (stage_q's thread index laundered) against session 33's binary, two
# interleaved rounds (--rot-gib 0.5): W1, W2, W5, W6; the X shapes of the spec-decode and fp8
# `_g64` variants; the head-dim-256 rows (`_d256_w32`, `_w64`, `_g64`). Then W1 with a balanced
# plan (264 CTAs) against auto, timelines of W2 and W6, and the GPU suite.
cd "$(dirname "$0")/../.."
R=/tmp/s34a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s34a-logs.tgz" .); }
G="--rot-gib 0.5"
X="--workload-file target/bundle/workloads-extra.toml --workloads X3,X8,X9,X10,X11,X12"
D="--workload-file target/bundle/workloads-d256.toml --workloads R02,R20,R39,G9,D05,D09"
for round in 1 2; do
  for b in new main; do
    E=$B; [ $b = main ] && E=$M
    timeout 60 $E bench $G --workloads W1,W2,W5,W6 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
    timeout 60 $E bench $G $X > $R/x-$b-r$round.log 2>&1; save "x $b r$round rc $?"
    timeout 90 $E bench $G $D > $R/d-$b-r$round.log 2>&1; save "d $b r$round rc $?"
  done
done
for round in 1 2; do
  for bal in on auto; do
    timeout 60 $M bench $G --workloads W1 --balance $bal > $R/w1-bal-$bal-r$round.log 2>&1; save "w1 $bal r$round rc $?"
  done
done
timeout 60 $B bench --workloads W2,W6 --timeline $R/tl > $R/timeline.log 2>&1; save "timeline rc $?"
timeout 280 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
