#!/usr/bin/env bash
# Session 44 call d: bundle = main (code of 4bc6651). W1, W5, W6 under the planner (auto) and
# forced alternatives (splits, clusters, paired / four-CTA fp8, combine parts, early K/V), two
# interleaved rounds, ceilings measured by the bench itself.
cd "$(dirname "$0")/../.."
R=/tmp/s44d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s44d-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
for r in 1 2; do
  i=0
  while IFS= read -r line; do
    i=$((i+1)); w="${line%%|*}"; cfg="${line#*|}"
    rem=$((380 - (SECONDS - start))); [ $rem -gt 20 ] || break 2
    echo "cfg $w: $cfg" > $R/b-$r-$i.log
    timeout 40 $B bench --workloads $w $cfg >> $R/b-$r-$i.log 2>&1; save "r$r $i $w ($cfg) rc $?"
  done < target/bundle/s44d-configs.txt
done
