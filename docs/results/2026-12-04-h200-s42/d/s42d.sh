#!/usr/bin/env bash
# Session 42 call d: bundle = branch exp/d256-m16 (change 123: two load warps for every 16-bit
# head-dim-256 variant); ferroflash-main = main (be261a5). (1) the whole GPU suite; (2) d256-42
# main / 123 once more, and 123 with --balance on; (3) check of d256-42; (4) memcheck and
# racecheck of the dims sweep and the last-wave split tests (d256 `_m16` cases), as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s42d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
T=target/bundle/gpu-tests
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s42d-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 280 $T > $R/suite.log 2>&1; save "suite rc $?"
F=target/bundle/d256-42.toml
timeout 40 $B-main bench --workload-file $F --rot-gib 0.5 > $R/d-main.log 2>&1; save "main rc $?"
timeout 40 $B bench --workload-file $F --rot-gib 0.5 > $R/d-123.log 2>&1; save "123 rc $?"
timeout 30 $B bench --workload-file $F --rot-gib 0.5 --workloads R02,R37,R31,S26,D3 --balance on > $R/d-123-bal.log 2>&1; save "123 bal rc $?"
timeout 40 $B check --workload-file $F > $R/check.log 2>&1; save "check rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for f in last_wave_split sweep_dims; do
  for tool in memcheck racecheck; do
    rem=$((560 - (SECONDS - start)))
    [ $rem -gt 20 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 $T $f > $R/$tool-$f.log 2>&1; save "$tool $f rc $?"; }
  done
done
