#!/usr/bin/env bash
# s33a: change 105 (persistent CTAs for the head-dim-256 wgmma kernel). The new GPU test and
# the cases it touches (graph replay, last-wave split, next-wave prefetch), memcheck and
# racecheck on the new test; ferroflash check on persist.toml; A/B bench (--persistent on/off,
# two interleaved rounds, --rot-gib 0.5) on persist.toml, and the build without the next item's
# Q prefetch (ferroflash-p0); W1, W2, W5, W6 against session 32's binary.
cd "$(dirname "$0")/../.."
R=/tmp/s33a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle/ferroflash-main.xz target/bundle/ferroflash-p0.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main; P0=target/bundle/ferroflash-p0
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s33a-logs.tgz" .); }
nvidia-smi > $R/smi.log 2>&1
for t in persistent_ctas cuda_graph last_wave next_wave; do
  timeout 100 target/bundle/gpu-tests $t > $R/test-$t.log 2>&1; save "test $t rc $?"
done
timeout 60 $B check --workload-file target/bundle/persist.toml > $R/check-persist.log 2>&1; save "check rc $?"
for round in 1 2; do
  for mode in on off p0; do
    X=$B; m=$mode; [ $mode = p0 ] && X=$P0 && m=on
    timeout 60 $X bench --workload-file target/bundle/persist.toml --rot-gib 0.5 --persistent $m > $R/bench-$mode-r$round.log 2>&1; save "bench $mode r$round rc $?"
  done
done
for round in 1 2; do
  for b in main new; do
    X=$B; [ $b = main ] && X=$M
    timeout 60 $X bench --workloads W1,W2,W5,W6 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
  done
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
timeout 120 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests persistent_ctas > $R/memcheck-persistent.log 2>&1; save "memcheck rc $?"
timeout 150 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests persistent_ctas > $R/racecheck-persistent.log 2>&1; save "racecheck rc $?"
