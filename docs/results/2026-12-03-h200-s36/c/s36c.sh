#!/usr/bin/env bash
# s36c: (1) the early-K/V test with the late writer right before each decode launch (call b's
# test had stream operations between them, so its control saw no overlap), memcheck and
# racecheck on it; (2) the fp8 shapes of sessions 34-35 (fp8n.toml, cal.toml) and X5-X7:
# fi_decode_tc, then this build (early on), session 33's binary, and this build with
# `--early-kv off`.
cd "$(dirname "$0")/../.."
R=/tmp/s36c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s36c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 60 target/bundle/gpu-tests early_kv > $R/early.log 2>&1; save "early test rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv > $R/memcheck-early.log 2>&1; save "memcheck early rc $?"
timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv > $R/racecheck-early.log 2>&1; save "racecheck early rc $?"
Q=$R/peers; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:80" FLASHINFER_DISABLE_JIT=1 timeout 90 bash .peers/run_device.sh --workload-file target/bundle/fp8-peers.toml > $R/peers-fp8.log 2>&1; save "peers fp8 rc $?"
cat target/bundle/fp8n.toml target/bundle/cal.toml > $R/fp8-all.toml
G="--rot-gib 0.5"
for b in new main off; do
  E=$B; X=""; [ $b = main ] && E=$M; [ $b = off ] && X="--early-kv off"
  rem=$((560 - (SECONDS - start)))
  [ $rem -gt 10 ] && { timeout $rem $E bench $G $X --workload-file $R/fp8-all.toml > $R/fp8-$b.log 2>&1; save "fp8 $b rc $?"; }
  rem=$((560 - (SECONDS - start)))
  [ $rem -gt 10 ] && { timeout $rem $E bench $G $X --workload-file target/bundle/workloads-extra.toml --workloads X5,X6,X7 > $R/x-$b.log 2>&1; save "x $b rc $?"; }
done
