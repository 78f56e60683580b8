#!/usr/bin/env bash
# Session 13, call e: cluster push without cluster barriers after the loop (push3, this bundle)
# vs main (rr): cluster tests, A/B two rounds, sanitizers on the cluster tests, suite. Writes to
# $OUT as it goes.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./gpu-tests cluster > "$OUT/tests-cluster.log" 2>&1; rc=$?; echo "cluster tests rc $rc"; grep -E "^(FAIL)|passed" "$OUT/tests-cluster.log" | cut -c1-300
[ $rc -ne 0 ] && exit 1
F="grep -v ^device\|^workload\|ceilings"
for round in 1 2; do
  for b in ./ab/ferroflash-rr ./ferroflash; do
    echo "== round $round $b"
    timeout 50 $b bench --workloads W2,W5,W6 2>&1 | $F | cut -c1-150
  done
done > "$OUT/ab.log" 2>&1
cut -c1-70 "$OUT/ab.log"
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck synccheck; do
  FF_LONG_KV=640 timeout 50 "$cs" --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests cluster > /tmp/san-$tool.log 2>&1; echo "$tool rc $?"
  grep -E "SUMMARY|^FAIL|passed|rror" /tmp/san-$tool.log | head -8 > "$OUT/sanitize-$tool.log"; cat "$OUT/sanitize-$tool.log"
done
timeout 120 ./gpu-tests > "$OUT/tests.log" 2>&1; echo "suite rc $?"; grep -E "^FAIL|passed" "$OUT/tests.log" | cut -c1-200
