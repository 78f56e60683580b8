#!/usr/bin/env bash
# Second call for change 116 (same bundle as next-kv-evict-first-1.sh): memcheck and racecheck
# on the decode tests that cover every consumer kind, then main / branch on the random and
# head-dim-256 workload files (as time allows).
cd "$(dirname "$0")/../.."
R=/tmp/s39b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s39b-logs.tgz" .); }
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for t in early_kv_tiles combine_parts; do
  timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/memcheck-$t.log 2>&1; save "memcheck $t rc $?"
  timeout 90 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
for f in workloads-d256.toml workloads-random.toml; do
  for b in main new; do
    E=$B; [ $b = main ] && E=$M
    rem=$((580 - (SECONDS - start)))
    [ $rem -gt 20 ] && { timeout $rem $E bench --workload-file target/bundle/$f > $R/$f-$b.log 2>&1; save "$f $b rc $?"; }
  done
done
