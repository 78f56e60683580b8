#!/usr/bin/env bash
# Session 14, call e: main vs the per-tile-stamp build (timings, stamps off), and ncu's
# PmSampling (DRAM throughput over a kernel's run) on the W2 and W5 decode kernels.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14e; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
for round in 1 2; do
  for b in ./ab/ferroflash-main ./ferroflash; do
    echo "== round $round $b"; timeout 60 $b bench --workloads W1,W2,W5,W6 2>&1 | $F | cut -c1-110
  done
done > $R/ab.log 2>&1
cat $R/ab.log
ncu --version | tail -1
for w in W2 W5; do
  timeout 120 ncu --section PmSampling --section SpeedOfLight --kernel-name regex:ff_decode --launch-skip 40 --launch-count 1 \
    --print-details all --print-metric-instances values ./ab/ferroflash-main bench --workloads $w > $R/ncu-$w.txt 2>&1; echo "ncu $w rc $?"
  grep -iE "dram|pmsampling|Duration|Memory Throughput" $R/ncu-$w.txt | head -12 | cut -c1-200
  tar czf "$OUT/s14e.tgz" -C /tmp s14e
done
