#!/usr/bin/env bash
# Session 14, call d: per-tile stamps (thread 0's finish time of every tile) on W1/W2/W5
# timelines; rotated sets (--rot-gib 2, the default) vs one set reused every call (--rot-gib 0).
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14d; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./gpu-tests timeline > $R/tests-timeline.log 2>&1; echo "timeline tests rc $?"; grep -E "^(PASS|FAIL)|passed" $R/tests-timeline.log | cut -c1-200
for rot in 2 0 2 0; do
  timeout 70 ./ferroflash bench --workloads W1,W2,W5 --rot-gib $rot --timeline $R/rot$rot > $R/rot$rot.txt 2>&1; echo "rot $rot rc $?"
  grep -v "^device\|^workload\|timeline" $R/rot$rot.txt | cut -c1-120
  tar czf "$OUT/s14d.tgz" -C /tmp s14d
done
