#!/usr/bin/env bash
# s37c: change 110b, the deep first fill by per-line `prefetch.global.L2` (110's per-row bulk
# prefetches made every call 8-12 us slower). FF_DEEP_FILL=N (early_kv = 1 + N): N tiles past
# the ring; 0 = main. W1/W2/W5/W6 at N = 0, 1, 4, two interleaved rounds; W1/W2 timeline at 4.
cd "$(dirname "$0")/../.."
R=/tmp/s37c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37c-logs.tgz" .); }
for round in 1 2; do
  for n in 0 1 4; do
    FF_DEEP_FILL=$n timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w-$n-r$round.log 2>&1; save "w $n r$round rc $?"
  done
done
FF_DEEP_FILL=4 timeout 40 $B bench --workloads W2,W1 --timeline $R/tl-4 > $R/tl-4.log 2>&1; save "tl 4 rc $?"
FF_DEEP_FILL=4 timeout 90 target/bundle/gpu-tests early_kv > $R/t-early.log 2>&1; save "test early rc $?"
