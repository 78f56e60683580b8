#!/usr/bin/env bash
# Session 13, call d: push cluster merge with relaxed arrivals (push2, this bundle) vs main (rr)
# vs push with the release arrival (push): cluster tests + memcheck/racecheck on push2, A/B.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s13d; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./gpu-tests cluster > "$R/tests-cluster.log" 2>&1; rc=$?; echo "cluster tests rc $rc"; grep -E "^(FAIL)|passed" "$R/tests-cluster.log" | cut -c1-300
if [ $rc -ne 0 ]; then tar czf "$OUT/s13d.tgz" -C /tmp s13d; exit 1; fi
F="grep -v ^device\|^workload\|ceilings"
for round in 1 2; do
  for b in ./ab/ferroflash-rr ./ferroflash ./ab/ferroflash-push; do
    echo "== round $round $b"
    timeout 50 $b bench --workloads W2,W5,W6 2>&1 | $F | cut -c1-150
  done
done > "$R/ab.log" 2>&1
cut -c1-70 "$R/ab.log"
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in racecheck memcheck; do
  FF_LONG_KV=640 timeout 60 "$cs" --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests cluster > $R/san-$tool.log 2>&1; echo "$tool rc $?"
  grep -E "SUMMARY|^FAIL|passed" $R/san-$tool.log | head -5
done
timeout 40 ./ferroflash bench --workloads W2,W5 --timeline $R/tl > $R/timeline.txt 2>&1; echo "timeline rc $?"
tar czf "$OUT/s13d.tgz" -C /tmp s13d
