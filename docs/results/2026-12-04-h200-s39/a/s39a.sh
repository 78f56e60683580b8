#!/usr/bin/env bash
# Session 39 call a: bundle = branch experiment/kv-evict-first (change 116) with
# ferroflash-main.xz (main, 6e7b76d) and ferroflash-117.xz (116 + cp.async .L2::256B prefetch,
# branch experiment/kv-prefetch-256). (1) the whole GPU suite on 116; (2) main / 116 / 117 on
# W1-W6 (round 1) and W1,W2,W5,W6 (round 2, reversed order); (3) memcheck and racecheck of
# early_kv_tiles on 116, as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s39a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s39a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 260 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
for b in main 116 117; do
  E=$B-$b; [ $b = 116 ] && E=$B
  timeout 60 $E bench --workloads W1,W2,W3,W4,W5,W6 > $R/w1-$b.log 2>&1; save "w r1 $b rc $?"
done
for b in 117 116 main; do
  E=$B-$b; [ $b = 116 ] && E=$B
  timeout 45 $E bench --workloads W1,W2,W5,W6 > $R/w2-$b.log 2>&1; save "w r2 $b rc $?"
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  rem=$((585 - (SECONDS - start)))
  [ $rem -gt 30 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv_tiles > $R/$tool-early_kv_tiles.log 2>&1; save "$tool early_kv_tiles rc $?"; }
done
