#!/usr/bin/env bash
# Session 41 call e: bundle = branch d256-g64-fill (change 122: head dim 256 past 32 rows over
# 16-bit K/V takes `_d256_g64` from 2 tiles per SM). (1) the whole GPU suite; (2) bench of
# d256-fill.toml (automatic plans) and of R07 / T07 of the seed-41 sweep; (3) d256-fill2.toml (40-128 rows, 282-284 tiles) automatic against --m-tiles 1, two rounds;
# (4) check of both files.
cd "$(dirname "$0")/../.."
R=/tmp/s41e; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s41e-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 60 $B bench --workload-file target/bundle/d256-fill.toml --rot-gib 0.5 > $R/fill-new.log 2>&1; save "fill new rc $?"
timeout 40 $B bench --workload-file target/bundle/sweep41.toml --workloads R07 --rot-gib 0.5 > $R/r07.log 2>&1; save "r07 rc $?"
timeout 40 $B bench --workload-file target/bundle/twins41.toml --workloads T07 --rot-gib 0.5 > $R/t07.log 2>&1; save "t07 rc $?"
for r in 1 2; do
  timeout 40 $B bench --workload-file target/bundle/d256-fill2.toml --rot-gib 0.5 > $R/fill2-new-r$r.log 2>&1; save "fill2 new r$r rc $?"
  timeout 40 $B bench --workload-file target/bundle/d256-fill2.toml --rot-gib 0.5 --m-tiles 1 > $R/fill2-m1-r$r.log 2>&1; save "fill2 m1 r$r rc $?"
done
timeout 60 $B check --workload-file target/bundle/d256-fill.toml > $R/check-fill.log 2>&1; save "check fill rc $?"
timeout 40 $B check --workload-file target/bundle/d256-fill2.toml > $R/check-fill2.log 2>&1; save "check fill2 rc $?"
rem=$((500 - (SECONDS - start)))
timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
