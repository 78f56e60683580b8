#!/usr/bin/env bash
# Session 40 call b: bundle = branch experiment/tma-evict-first (change 118: TMA tiles under
# the K/V L2 evict-first policy; `ferroflash`, `gpu-tests`) with main's binary as
# ferroflash-main.xz. (1) main / 118 on workloads-extra.toml (the `_g64` spec-decode shapes take
# the TMA path) in two interleaved rounds; (2) W1-W6 main / 118; (3) the whole GPU suite on 118;
# (4) memcheck and racecheck of tma_tiles on 118, as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s40b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; X=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s40b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
timeout 70 $B-main bench --workload-file $X --workloads X3,X8,X9,X10,X11,X12 > $R/x1-main.log 2>&1; save "x r1 main rc $?"
timeout 70 $B bench --workload-file $X --workloads X3,X8,X9,X10,X11,X12 > $R/x1-118.log 2>&1; save "x r1 118 rc $?"
timeout 70 $B bench --workload-file $X --workloads X3,X8,X9,X10,X11,X12 > $R/x2-118.log 2>&1; save "x r2 118 rc $?"
timeout 70 $B-main bench --workload-file $X --workloads X3,X8,X9,X10,X11,X12 > $R/x2-main.log 2>&1; save "x r2 main rc $?"
timeout 60 $B-main bench > $R/w-main.log 2>&1; save "w main rc $?"
timeout 60 $B bench > $R/w-118.log 2>&1; save "w 118 rc $?"
rem=$((560 - (SECONDS - start))); [ $rem -gt 240 ] && rem=240
timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  rem=$((585 - (SECONDS - start)))
  [ $rem -gt 20 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma_tiles > $R/$tool-tma_tiles.log 2>&1; save "$tool tma_tiles rc $?"; }
done
