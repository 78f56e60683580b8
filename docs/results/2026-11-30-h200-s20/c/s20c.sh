#!/usr/bin/env bash
# s20c: the paged read probe with shift addressing and eight loads in flight per thread (change
# 81b) on the decode plans' cuts, against decode, two rounds of the short shapes.
cd "$(dirname "$0")/../.."
R=/tmp/s20c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
NM=docs/results/2026-11-30-h200-s20/a/nomerge.toml
step() { local name=$1; shift; timeout 90 "$@" > $R/$name.log 2>&1; echo "$name rc $? t=$((SECONDS-start))" >> $R/steps.log; }
step w-dec $B bench --workloads W1,W2,W5,W6
for round in 1 2; do
step w-probe-$round $B bench --workloads W1,W2,W5,W6 --paged-probe
done
step nm-probe $B bench --workload-file $NM --workloads N2,N4,N6,N7 --splits 1 --paged-probe
step long-probe $B bench --workloads W3,W4 --paged-probe
cp -r $R "$OUT/"
