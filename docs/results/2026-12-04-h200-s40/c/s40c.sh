#!/usr/bin/env bash
# Session 40 call c: bundle = main bdedd93 (changes 116 and 118 merged; the binary of call b's
# `ferroflash`). With the K/V copies evict-first (116), are the planner's plan choices, made
# before it, still the fastest? Zero-code variants on W1, W2, W5, W6 in two rounds:
# `--cluster off` (combine instead of the cluster merge), `--cluster-max 2`, W5 `--paired off`,
# W1 `--combine-parts 4, 16`; then a timeline of W1, W2, W5, W6 (`--timeline`, the release
# build's stamps: no per-tile stamps) for `cargo xtask timeline`.
cd "$(dirname "$0")/../.."
R=/tmp/s40c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s40c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
for r in 1 2; do
  timeout 45 $B bench --workloads W1,W2,W5,W6 > $R/w-r$r.log 2>&1; save "w r$r rc $?"
  timeout 40 $B bench --workloads W2,W5,W6 --cluster off > $R/cluster-off-r$r.log 2>&1; save "cluster off r$r rc $?"
  timeout 40 $B bench --workloads W2,W5,W6 --cluster-max 2 > $R/cluster-max2-r$r.log 2>&1; save "cluster max 2 r$r rc $?"
  timeout 20 $B bench --workloads W5 --paired off > $R/w5-paired-off-r$r.log 2>&1; save "w5 paired off r$r rc $?"
  for c in 4 16; do
    timeout 20 $B bench --workloads W1 --combine-parts $c > $R/w1-parts$c-r$r.log 2>&1; save "w1 parts $c r$r rc $?"
  done
done
mkdir -p $R/tl
timeout 90 $B bench --workloads W1,W2,W5,W6 --timeline $R/tl > $R/tl.log 2>&1; save "timeline rc $?"
