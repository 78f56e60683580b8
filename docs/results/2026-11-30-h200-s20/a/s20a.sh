#!/usr/bin/env bash
# s20a: no code change. The W-shapes' byte counts without a split merge: 128 and 256 MiB as
# 128 or 256 unsplit blocks (--splits 1), against the same with the planner's splits, W1/W2/W5/W6
# and the graph probe, in one process each, two rounds.
cd "$(dirname "$0")/../.."
R=/tmp/s20a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
NM=docs/results/2026-11-30-h200-s20/a/nomerge.toml
for round in 1 2; do
timeout 50 target/bundle/ferroflash bench --workloads W1,W2,W5,W6 > $R/w-$round.log 2>&1; echo "w $round rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 target/bundle/ferroflash bench --workload-file $NM --splits 1 > $R/nm1-$round.log 2>&1; echo "nm1 $round rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 target/bundle/ferroflash bench --workload-file $NM > $R/nmauto-$round.log 2>&1; echo "nmauto $round rc $? t=$((SECONDS-start))" >> $R/steps.log
done
timeout 40 target/bundle/ferroflash probe --configs 2x1024,1x1024 > $R/probe.log 2>&1; echo "probe rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
