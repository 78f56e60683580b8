#!/usr/bin/env bash
# Session 11, call a: the suite with _g64 on by default and the shared softmax helper (never run
# on the GPU), sanitizers on the tests that reach _g64, W1-W7 and the extras, cluster policies.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s11a; mkdir -p $R
cd "$here"
timeout 170 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-800 | head -20
echo "== W + extras"; timeout 70 ./ferroflash bench --jsonl $R/raw.jsonl 2>&1 | grep -v "^device" | cut -c1-220
timeout 90 ./ferroflash bench --workload-file ../../benches/workloads-extra.toml --jsonl $R/raw-extra.jsonl 2>&1 | grep -v "^device\|ceilings" | cut -c1-220
for p in 1 2; do
  echo "== cluster policy $p"; FERROFLASH_CLUSTER_POLICY=$p timeout 40 ./ferroflash bench --workloads W1,W2,W6 2>&1 | grep -v "^device\|ceilings" | cut -c1-220
done
for f in wgmma graph sweep_dims; do
  [ $SECONDS -lt 420 ] || { echo "skip sanitize $f (time)"; continue; }
  OUT=$R timeout $((540 - SECONDS)) bash run.sh sanitize $f > "$R/sanitize-$f.log" 2>&1; echo "sanitize $f rc $?"
  grep -E "SUMMARY|exit|passed" "$R/sanitize-$f.log"
done
rm -f $R/sanitize-memcheck.log $R/sanitize-racecheck.log $R/sanitize-synccheck.log
tar czf "$OUT/s11a.tgz" -C /tmp s11a
