#!/usr/bin/env bash
# s37f: change 113, the in-CTA merge's pass 2 takes two units per step with both units'
# shared loads issued first (W6: 256 units over 128 threads, two dependent rounds before).
# W1/W2/W5/W6 main (session 36) / new, two interleaved rounds; merge-path tests on the new build.
cd "$(dirname "$0")/../.."
R=/tmp/s37f; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37f-logs.tgz" .); }
for round in 1 2; do
  timeout 30 $M bench --workloads W1,W2,W5,W6 > $R/w-main-r$round.log 2>&1; save "w main r$round rc $?"
  timeout 30 $B bench --workloads W1,W2,W5,W6 > $R/w-new-r$round.log 2>&1; save "w new r$round rc $?"
done
for t in cluster_merge splits1_equals_splitsn combine_parts narrow_rows fp8_quick; do
  rem=$((140 - (SECONDS - start)))
  [ $rem -gt 5 ] && { timeout $rem target/bundle/gpu-tests $t > $R/t-$t.log 2>&1; save "test $t rc $?"; }
done
