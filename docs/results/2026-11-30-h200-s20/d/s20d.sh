#!/usr/bin/env bash
# s20d: the paged read probe cut by kv head (the plan's cut) against the token cut (whole
# pages, same CTAs and bytes per CTA), two interleaved rounds; the contiguous graph probe.
cd "$(dirname "$0")/../.."
R=/tmp/s20d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
step() { local name=$1; shift; timeout 90 "$@" > $R/$name.log 2>&1; echo "$name rc $? t=$((SECONDS-start))" >> $R/steps.log; }
for round in 1 2; do
step head-$round $B bench --workloads W1,W2,W5,W6 --paged-probe kv-head
step token-$round $B bench --workloads W1,W2,W5,W6 --paged-probe token
done
step long-token $B bench --workloads W3,W4 --paged-probe token
timeout 40 $B probe --configs 2x1024 > $R/probe.log 2>&1; echo "probe rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
