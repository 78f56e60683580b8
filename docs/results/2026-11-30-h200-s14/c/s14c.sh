#!/usr/bin/env bash
# Session 14, call c: is the slow first quarter of every CTA (W1/W2/W5 timelines of call b)
# the TLB warming up? Same build as call b; the rotated working set (--rot-gib) swept.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14c; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
for rot in 0.25 1 2 8 0.25; do
  timeout 70 ./ferroflash bench --workloads W1,W2,W5 --rot-gib $rot --timeline $R/rot$rot > $R/rot$rot.txt 2>&1; echo "rot $rot rc $?"
  grep -v "^device\|^workload" $R/rot$rot.txt | cut -c1-120
  tar czf "$OUT/s14c.tgz" -C /tmp s14c
done
