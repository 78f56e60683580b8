#!/usr/bin/env bash
# Session 14, call a: the persistent draft (session 9, branch experiment/persistent) at small
# tails vs its own --cluster off and main (clusters on / off). W1, W2, W6, two rounds.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14a; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 60 ./ab/gpu-tests-pers persistent > $R/tests-pers.log 2>&1; echo "persistent test rc $?"; grep -E "^(PASS|FAIL)|passed" $R/tests-pers.log | cut -c1-200
F="grep -v ^device\|^workload"
W="--workloads W1,W2,W6"
run() { echo "== $*"; timeout 50 "$@" $W 2>&1 | $F | cut -c1-150; }
for round in 1 2; do
  echo "##### round $round"
  run ./ferroflash bench
  run ./ferroflash bench --cluster off
  run ./ab/ferroflash-pers bench --cluster off
  for t in 3:1 4:2 6:2 8:2 8:4; do run ./ab/ferroflash-pers bench --cluster off --persistent on --tail $t; done
  cp $R/*.log "$OUT/" 2>/dev/null
done > "$R/ab.log" 2>&1
cut -c1-90 "$R/ab.log"
mkdir -p $R/tl-p42 $R/tl-main
timeout 50 ./ab/ferroflash-pers bench --workloads W2 --cluster off --persistent on --tail 4:2 --timeline $R/tl-p42 > $R/timeline-p42.txt 2>&1; echo "tl rc $?"
timeout 50 ./ferroflash bench --workloads W2 --cluster off --timeline $R/tl-main > $R/timeline-main-off.txt 2>&1; echo "tl rc $?"
tar czf "$OUT/s14a.tgz" -C /tmp s14a
