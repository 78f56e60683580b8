#!/usr/bin/env bash
# Session 12, call a: suite on main (incl. the max_cluster_splits=4 -> combine check), cluster tests
# on experiment/cluster-merge-loads (cml), A/B main vs cml, timelines with experiment/warp-loop-end (wle).
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s12a; mkdir -p $R
cd "$here"
for f in ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 170 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-800 | head -20
timeout 100 ./ab/gpu-tests-cml cluster > "$R/tests-cml.log" 2>&1; echo "cml cluster tests rc $?"
grep -E "^(PASS|FAIL|SKIP)|passed" "$R/tests-cml.log" | cut -c1-400 | head -20
E="--workload-file ../../benches/workloads-extra.toml --workloads X2,X6"
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-cml; do
    echo "== round $round $b"
    timeout 40 $b bench --workloads W1,W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
    timeout 40 $b bench $E 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log"
mkdir -p $R/wle $R/cml
timeout 40 ./ab/ferroflash-wle bench --workloads W2,W5,W6 --timeline $R/wle 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-wle.txt"
timeout 40 ./ab/ferroflash-cml bench --workloads W2,W5 --timeline $R/cml 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-cml.txt"
cat $R/timeline-wle.txt | head -60
tar czf "$OUT/s12a.tgz" -C /tmp s12a
