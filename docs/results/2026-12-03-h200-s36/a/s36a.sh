#!/usr/bin/env bash
# s36a: early K/V tiles (`--early-kv on`: the tiles before the new tokens copied before
# griddepcontrol.wait). (1) W1/W2/W5/W6 off/on, two interleaved rounds; W3/W4 and X5-X7
# off/on once; W2 timeline with it on; (2) memcheck and racecheck (paired, fp8_quick);
# (3) the whole suite (session 35's final paired/narrow kernels, wait moved into the loop).
cd "$(dirname "$0")/../.."
R=/tmp/s36a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s36a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
for round in 1 2; do
  for e in off on; do
    timeout 40 $B bench --workloads W1,W2,W5,W6 --early-kv $e > $R/w-$e-r$round.log 2>&1; save "w $e r$round rc $?"
  done
done
for e in off on; do
  timeout 60 $B bench --workloads W3,W4 --early-kv $e > $R/w34-$e.log 2>&1; save "w34 $e rc $?"
  timeout 40 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7 --early-kv $e > $R/x-$e.log 2>&1; save "x $e rc $?"
done
timeout 30 $B bench --workloads W2,W1 --early-kv on --timeline $R/tl-on > $R/tl-on.log 2>&1; save "tl on rc $?"
timeout 30 $B bench --workloads W2,W1 --early-kv off --timeline $R/tl-off > $R/tl-off.log 2>&1; save "tl off rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for t in paired fp8_quick; do
  FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/memcheck-$t.log 2>&1; save "memcheck $t rc $?"
  FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
rem=$((570 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
