#!/usr/bin/env bash
# Session 12, call b: suite on cml3 (one-pass merge, interleaved cluster units, n-only DSMEM loads);
# A/B main vs cml2 (n-only loads) vs cml3, two rounds; cml3 epilogue timelines.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s12b; mkdir -p $R
cd "$here"
for f in ab/*.xz; do xz -d -f $f; chmod +x ${f%.xz}; done
timeout 170 ./ab/gpu-tests-cml3 > "$R/tests-cml3.log" 2>&1; echo "cml3 tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests-cml3.log" | cut -c1-800 | head -20
E="--workload-file ../../benches/workloads-extra.toml --workloads W7,X2,X6"
for round in 1 2; do
  for b in ./ferroflash ./ab/ferroflash-cml2 ./ab/ferroflash-cml3; do
    echo "== round $round $b"
    timeout 40 $b bench --workloads W1,W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
    timeout 40 $b bench $E 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-200
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log" | cut -c1-60
mkdir -p $R/cml3
timeout 40 ./ab/ferroflash-cml3 bench --workloads W2,W5,W6 --timeline $R/cml3 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-cml3.txt"
tar czf "$OUT/s12b.tgz" -C /tmp s12b
