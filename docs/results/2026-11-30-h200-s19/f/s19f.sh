#!/usr/bin/env bash
# s19f: TMA tiles with the fix for 64-byte-row variants (no TmaLane there): the suite, then
# W1-W6 with --tma off / on in one binary.
cd "$(dirname "$0")/../.."
R=/tmp/s19f; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
for m in off on; do
timeout 70 target/bundle/ferroflash bench --tma $m --workloads W1,W2,W3,W4,W5,W6 > $R/bench-$m.log 2>&1; echo "bench $m rc $? t=$((SECONDS-start))" >> $R/steps.log
done
cp -r $R "$OUT/"
