#!/usr/bin/env bash
# Session 11, call b: cluster scheduling policy LOAD_BALANCING (default now) and clusters of up
# to 8 splits; A/B against clusters of at most 4 and against the old default policy.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s11b; mkdir -p $R
cd "$here"
timeout 100 bash run.sh tests cluster > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(PASS|FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-900
W="--workloads W1,W2,W5,W6,W7"
X="--workload-file ../../benches/workloads-extra.toml --workloads X2,X3,X5,X6,X8,X9,X11"
for round in 1 2; do
  for cfg in "2 0" "2 4" "0 4"; do
    set -- $cfg
    echo "== round $round policy $1 max $2"
    FERROFLASH_CLUSTER_POLICY=$1 FERROFLASH_CLUSTER_MAX=$2 timeout 40 ./ferroflash bench $W 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-230
    FERROFLASH_CLUSTER_POLICY=$1 FERROFLASH_CLUSTER_MAX=$2 timeout 40 ./ferroflash bench $X 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-230
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log"
timeout 30 ./ferroflash bench --workloads W2,W5 --timeline $R 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline.txt"
tail -40 "$R/timeline.txt"
OUT=$R timeout 150 bash run.sh sanitize cluster_merge_against > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
rm -f $R/sanitize-*.log
tar czf "$OUT/s11b.tgz" -C /tmp s11b
