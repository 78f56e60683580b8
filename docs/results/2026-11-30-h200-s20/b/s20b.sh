#!/usr/bin/env bash
# s20b: the paged read probe (change 81, a diagnostic) against decode on the same cuts:
# W1/W2/W5/W6, the unsplit shapes of call a, W3/W4; two rounds of the short ones; the graph probe.
cd "$(dirname "$0")/../.."
R=/tmp/s20b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
NM=docs/results/2026-11-30-h200-s20/a/nomerge.toml
step() { local name=$1; shift; timeout 90 "$@" > $R/$name.log 2>&1; echo "$name rc $? t=$((SECONDS-start))" >> $R/steps.log; }
for round in 1 2; do
step w-dec-$round $B bench --workloads W1,W2,W5,W6
step w-probe-$round $B bench --workloads W1,W2,W5,W6 --paged-probe
done
step nm-probe $B bench --workload-file $NM --workloads N2,N4,N6,N7 --splits 1 --paged-probe
step long-dec $B bench --workloads W3,W4
step long-probe $B bench --workloads W3,W4 --paged-probe
timeout 40 $B probe --configs 2x1024 > $R/probe.log 2>&1; echo "probe rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
