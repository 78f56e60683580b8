#!/usr/bin/env bash
# Session 12, call e: cluster-merge units in runs of 8 interleaved over the ranks (s8) vs main;
# cluster tests on s8; A/B on the cluster workloads, two rounds.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s12e; mkdir -p $R
cd "$here"
for f in ferroflash.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./ab/gpu-tests-s8 cluster > "$R/tests-s8.log" 2>&1; echo "s8 cluster tests rc $?"; grep -E "^(PASS|FAIL)|passed" "$R/tests-s8.log" | cut -c1-300
E="--workload-file ../../benches/workloads-extra.toml --workloads X6"
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-s8; do
    echo "== round $round $b"
    timeout 60 $b bench --workloads W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
    timeout 40 $b bench $E 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log" | cut -c1-60
tar czf "$OUT/s12e.tgz" -C /tmp s12e
