#!/usr/bin/env bash
# Session 10, call g (branch experiment/wgmma-consumer): the wgmma consumer (_g64) against the
# reference, then X3/X11 with --wgmma on / off, then sanitizers on its test.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s10g; mkdir -p $R
cd "$here"
timeout 60 bash run.sh tests wgmma > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(PASS|FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-900
X="--workload-file ../../benches/workloads-extra.toml --workloads X3,X11,X10"
for w in on off on off; do
  echo "== --wgmma $w"; timeout 40 ./ferroflash bench $X --wgmma $w 2>&1 | grep -v "^device\|^workload" | cut -c1-200
done > "$R/ab.log" 2>&1
cat "$R/ab.log"
OUT=$R timeout 80 bash run.sh sanitize wgmma_consumer > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
rm -f $R/sanitize-memcheck.log $R/sanitize-racecheck.log $R/sanitize-synccheck.log
tar czf "$OUT/s10g.tgz" -C /tmp s10g
