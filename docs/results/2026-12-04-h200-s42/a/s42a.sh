#!/usr/bin/env bash
# Session 42 call a: bundle = main (be261a5). (1) compute42.toml (shapes the split model
# under-prices: many rows per kv head, fp8, head dim 64) with the automatic plan, --splits 1..4
# and --balance on, and timelines of C1/C3 unsplit; (2) ferroflash check on the 40 random shapes
# of seed 42 (sweep42.toml) and their bf16 twins (twins42.toml).
cd "$(dirname "$0")/../.."
R=/tmp/s42a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s42a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
C=target/bundle/compute42.toml
timeout 60 $B bench --workload-file $C --rot-gib 0.5 > $R/c-auto.log 2>&1; save "auto rc $?"
for s in 1 2 3 4; do
  timeout 60 $B bench --workload-file $C --rot-gib 0.5 --splits $s > $R/c-s$s.log 2>&1; save "s$s rc $?"
done
timeout 60 $B bench --workload-file $C --rot-gib 0.5 --balance on > $R/c-bal.log 2>&1; save "bal rc $?"
timeout 60 $B bench --workload-file $C --rot-gib 0.5 --workloads C1,C3,C7 --splits 1 --timeline $R/tl > $R/c-tl.log 2>&1; save "tl rc $?"
timeout 120 $B check --workload-file target/bundle/sweep42.toml > $R/check-sweep42.log 2>&1; save "check sweep rc $?"
timeout 60 $B check --workload-file target/bundle/twins42.toml > $R/check-twins42.log 2>&1; save "check twins rc $?"
timeout 60 $B bench --workload-file $C --rot-gib 0.5 > $R/c-auto2.log 2>&1; save "auto2 rc $?"
