#!/usr/bin/env bash
# Session 13, call c: cluster merge by push (this bundle) vs main (rr = change 56): cluster tests,
# A/B W2/W5/W6/X6 two rounds, suite, sanitizers on the cluster tests, timeline.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s13c; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 90 ./gpu-tests cluster > "$R/tests-cluster.log" 2>&1; rc=$?; echo "cluster tests rc $rc"; grep -E "^(PASS|FAIL)|passed" "$R/tests-cluster.log" | cut -c1-300
if [ $rc -ne 0 ]; then tar czf "$OUT/s13c.tgz" -C /tmp s13c; exit 1; fi
F="grep -v ^device\|^workload"
E="--workload-file workloads-extra.toml --workloads X6"
for round in 1 2; do
  for b in ./ab/ferroflash-rr ./ferroflash; do
    echo "== round $round $b"
    timeout 60 $b bench --workloads W2,W5,W6 2>&1 | $F | cut -c1-150
    timeout 40 $b bench $E 2>&1 | $F | cut -c1-150
  done
done > "$R/ab.log" 2>&1
cut -c1-70 "$R/ab.log"
timeout 150 ./gpu-tests > "$R/tests.log" 2>&1; echo "suite rc $?"; grep -E "^FAIL|passed" "$R/tests.log" | cut -c1-200
cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for tool in memcheck racecheck synccheck; do
  FF_LONG_KV=640 timeout 60 "$cs" --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests cluster > $R/san-$tool.log 2>&1; echo "$tool rc $?"
  grep -E "SUMMARY|^FAIL|passed" $R/san-$tool.log | head -5
done
timeout 60 ./ferroflash bench --workloads W2,W5,W6 --timeline $R/tl > $R/timeline.txt 2>&1; echo "timeline rc $?"
tar czf "$OUT/s13c.tgz" -C /tmp s13c
