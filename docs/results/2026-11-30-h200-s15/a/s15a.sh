#!/usr/bin/env bash
# Session 15, call a: (1) per-tile issue/begin/end stamps (branch experiment/tile-begin-stamps,
# FF_TILE_STAMPS=1 build = ./ferroflash) on W1, W2, W5 with timelines; (2) fp8 d64 A/B: main
# vs experiment/fp8-d64-four-ctas, two rounds.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s15a; mkdir -p $R/tl
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
timeout 90 ./ferroflash bench --workloads W1,W2,W5 --timeline $R/tl 2>&1 | $F | cut -c1-120 | tee $R/stamps.log
for round in 1 2; do
  for b in ./ab/ferroflash-main ./ab/ferroflash-d64; do
    echo "== round $round $b"; timeout 90 $b bench --workload-file d64.toml 2>&1 | $F | cut -c1-130
  done
done 2>&1 | tee $R/d64.log
timeout 150 ./ab/ferroflash-d64 check --workload-file d64.toml 2>&1 | tail -5 | tee -a $R/d64.log
tar czf "$OUT/s15a.tgz" -C /tmp s15a
