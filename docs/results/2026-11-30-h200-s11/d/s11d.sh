#!/usr/bin/env bash
# Session 11, call d: relaxed last cluster barrier and the V scale loaded before the merge
# barriers; suite, A/B against call c's build, epilogue timelines, sanitizers on the cluster tests.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s11d; mkdir -p $R
cd "$here"
xz -d -f ab/ferroflash-s11c.xz; chmod +x ab/ferroflash-s11c
timeout 170 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-800 | head -20
E="--workload-file ../../benches/workloads-extra.toml --workloads W7,X2,X6,X8"
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-s11c; do
    echo "== round $round $b"
    timeout 40 $b bench --workloads W1,W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
    timeout 40 $b bench $E 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log"
mkdir -p $R/on
timeout 40 ./ferroflash bench --workloads W2,W5,W6 --timeline $R/on 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-on.txt"
OUT=$R timeout 150 bash run.sh sanitize cluster_merge > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
rm -f $R/sanitize-*.log
tar czf "$OUT/s11d.tgz" -C /tmp s11d
