#!/usr/bin/env bash
# Session 41 call d: bundle = main (call b's). Head dim 256, 17-64 rows per kv head, batches
# under the row-split fill threshold: --m-tiles auto against 4 (d256-fill.toml) and against 2
# (d256-fill-32.toml), two interleaved rounds. (The row-split plans are checked by the suite.)
cd "$(dirname "$0")/../.."
R=/tmp/s41d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; F=target/bundle/d256-fill.toml; G=target/bundle/d256-fill-32.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s41d-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
for r in 1 2; do
  timeout 60 $B bench --workload-file $F --rot-gib 0.5 > $R/fill-auto-r$r.log 2>&1; save "fill auto r$r rc $?"
  timeout 60 $B bench --workload-file $F --rot-gib 0.5 --m-tiles 4 > $R/fill-m4-r$r.log 2>&1; save "fill m4 r$r rc $?"
  timeout 40 $B bench --workload-file $G --rot-gib 0.5 > $R/fill32-auto-r$r.log 2>&1; save "fill32 auto r$r rc $?"
  timeout 40 $B bench --workload-file $G --rot-gib 0.5 --m-tiles 2 > $R/fill32-m2-r$r.log 2>&1; save "fill32 m2 r$r rc $?"
done
