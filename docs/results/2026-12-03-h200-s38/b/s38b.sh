#!/usr/bin/env bash
# Session 38, call b (branch experiment/early-kv-depth): `cargo xtask bundle`,
# `rm -rf target/bundle/ptx`, main's ferroflash as target/bundle/ferroflash-main.xz, this script
# copied in; carry ["target/bundle"].
# (1) two interleaved rounds: main, then this binary at --early-kv-tiles auto / 1 / 2, on
# W1/W2/W5/W6; (2) the early-K/V test (it now also runs depth 1) and racecheck on it; (3) the
# whole suite (its sweeps cycle early_kv_tiles None / 1 / 2).
cd "$(dirname "$0")/../.."
R=/tmp/s38b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s38b-logs.tgz" .); }
for round in 1 2; do
  timeout 40 $M bench --workloads W1,W2,W5,W6 > $R/w-main-r$round.log 2>&1; save "w main r$round rc $?"
  for n in auto 1 2; do
    timeout 40 $B bench --workloads W1,W2,W5,W6 --early-kv-tiles $n > $R/w-t$n-r$round.log 2>&1; save "w t$n r$round rc $?"
  done
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 60 target/bundle/gpu-tests early_kv_tiles > $R/t-early.log 2>&1; save "test early rc $?"
timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests early_kv_tiles > $R/racecheck-early.log 2>&1; save "racecheck early rc $?"
rem=$((560 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
