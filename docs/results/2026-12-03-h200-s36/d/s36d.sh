#!/usr/bin/env bash
# s36d: with early K/V tiles, do the planner's choices for W1/W5/W6 still hold? (call c's
# build) W5 paired on/off, W1 splits 16/24/48/auto, W6 splits 2/8/auto and clusters off.
cd "$(dirname "$0")/../.."
R=/tmp/s36d; mkdir -p $R
xz -d -f target/bundle/ferroflash.xz; chmod +x target/bundle/ferroflash
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s36d-logs.tgz" .); }
run() { n=$1; shift; timeout 25 $B bench "$@" > $R/$n.log 2>&1; save "$n rc $?"; }
run w5-auto --workloads W5
run w5-off --workloads W5 --paired off
run w1-auto --workloads W1
run w1-s16 --workloads W1 --splits 16
run w1-s48 --workloads W1 --splits 48
run w6-auto --workloads W6
run w6-s2 --workloads W6 --splits 2
run w6-s8 --workloads W6 --splits 8
run w6-nocl --workloads W6 --cluster off
run w1-s24 --workloads W1 --splits 24
