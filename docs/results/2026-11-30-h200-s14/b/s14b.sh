#!/usr/bin/env bash
# Session 14, call b: progress stamps (quarter/half/three quarters of each CTA's tiles) on
# W1/W2/W5/W6 timelines, clusters on (main's plan) and off, two launches each.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14b; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./gpu-tests timeline > $R/tests-timeline.log 2>&1; echo "timeline tests rc $?"; grep -E "^(PASS|FAIL)|passed" $R/tests-timeline.log | cut -c1-200
for i in 1 2; do
  timeout 60 ./ferroflash bench --workloads W1,W2,W5,W6 --timeline $R/on$i > $R/on$i.txt 2>&1; echo "on$i rc $?"
  grep -v "^device\|^workload" $R/on$i.txt | cut -c1-120
  timeout 40 ./ferroflash bench --workloads W2,W5 --cluster off --timeline $R/off$i > $R/off$i.txt 2>&1; echo "off$i rc $?"
  grep -v "^device\|^workload" $R/off$i.txt | cut -c1-120
  tar czf "$OUT/s14b.tgz" -C /tmp s14b
done
