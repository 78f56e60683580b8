#!/usr/bin/env bash
# Session 12, call f (short budget): A/B main vs rr (only real rows' O into the merge scratch) on
# W2/W5/W6, the suite on rr, then memcheck + racecheck on main's cluster tests. Writes to $OUT as it goes.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-rr; do
    echo "== round $round $b"
    timeout 40 $b bench --workloads W2,W5,W6 2>&1 | grep -v "^device\|^workload" | cut -c1-120
  done
done > "$OUT/ab.log" 2>&1
cat "$OUT/ab.log"
timeout 120 ./ab/gpu-tests-rr > "$OUT/tests-rr.log" 2>&1; echo "rr tests rc $?"; grep -E "^(FAIL|SKIP)|passed" "$OUT/tests-rr.log" | cut -c1-300
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck; do
  FF_LONG_KV=640 timeout 60 "$cs" --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests cluster > /tmp/san-$tool.log 2>&1; echo "$tool rc $?"
  grep -E "SUMMARY|^(PASS|FAIL)|passed" /tmp/san-$tool.log > "$OUT/sanitize-$tool.log"; cat "$OUT/sanitize-$tool.log"
done
