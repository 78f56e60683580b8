#!/usr/bin/env bash
# Session 12, call c: A/B main / cml2 (n-only DSMEM loads) / cml5 (+ one round trip) / cml4 (+ one-pass
# in-CTA merge, units interleaved over ranks), two rounds; cluster tests on cml4 and cml5; timelines.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s12c; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
for t in cml4 cml5; do timeout 60 ./ab/gpu-tests-$t cluster > "$R/tests-$t.log" 2>&1; echo "$t cluster tests rc $?"; grep -E "^(PASS|FAIL)|passed" "$R/tests-$t.log" | cut -c1-300; done
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-cml2 ./ab/ferroflash-cml5 ./ab/ferroflash-cml4; do
    echo "== round $round $b"
    timeout 50 $b bench --workloads W1,W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log" | cut -c1-60
for t in cml5 cml4; do mkdir -p $R/$t; timeout 40 ./ab/ferroflash-$t bench --workloads W2,W5,W6 --timeline $R/$t 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-$t.txt"; done
tar czf "$OUT/s12c.tgz" -C /tmp s12c
