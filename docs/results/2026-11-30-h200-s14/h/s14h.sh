#!/usr/bin/env bash
# Session 14, call h: the FF_TILE_STAMPS=1 bundle (per-tile stamps after the grid's records):
# the timeline test, then W1/W2/W5 timelines for `cargo xtask timeline`.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14h; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
timeout 60 ./gpu-tests timeline > $R/tests-timeline.log 2>&1; echo "timeline test rc $?"; grep -E "^(PASS|FAIL)|passed" $R/tests-timeline.log | cut -c1-200
timeout 80 ./ferroflash bench --workloads W1,W2,W5 --timeline $R/tl > $R/tl.txt 2>&1; echo "bench rc $?"
grep -v "^device\|timeline" $R/tl.txt | cut -c1-110
tar czf "$OUT/s14h.tgz" -C /tmp s14h
