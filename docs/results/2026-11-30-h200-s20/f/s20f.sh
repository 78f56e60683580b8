#!/usr/bin/env bash
# s20f: the paged read probe with finer cuts (more, shorter CTAs in several waves, balanced by
# the hardware scheduler) on W1/W2/W5/W6, against the plan's cut; decode at the same splits.
cd "$(dirname "$0")/../.."
R=/tmp/s20f; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
step() { local name=$1; shift; timeout 60 "$@" > $R/$name.log 2>&1; echo "$name rc $? t=$((SECONDS-start))" >> $R/steps.log; }
step probe-auto $B bench --workloads W1,W2,W5,W6 --paged-probe
for s in 16 64; do
step probe-s$s $B bench --workloads W1,W2,W5,W6 --paged-probe --splits $s
done
step dec-s16 $B bench --workloads W2,W6 --splits 16
cp -r $R "$OUT/"
