#!/usr/bin/env bash
# Session 10, call b: row-split consumers (w32/w64), after the merge fix. New GPU test, the
# suite, the spec-decode extras new (auto = row split; --row-split off) against main (e359eb0
# build), sanitizers on the new test, W1-W7 new against main (the m16 path's PTX moved).
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s10b; mkdir -p $R
cd "$here"
bash run.sh tests prim/sreg > /dev/null 2>&1  # unpack binaries
xz -d -f ab/ferroflash-main.xz; chmod +x ab/ferroflash-main
timeout 120 ./gpu-tests row_split > "$R/test-row-split.log" 2>&1; echo "row_split test rc $?"
cut -c1-1500 "$R/test-row-split.log" | head -20
timeout 150 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-800 | head -20
X="--workload-file ../../benches/workloads-extra.toml --workloads X3,X8,X9,X10,X11"
for round in 1 2; do
  echo "== round $round new (auto)"; timeout 60 ./ferroflash bench $X 2>&1 | grep -v "^device" | cut -c1-200
  echo "== round $round new --row-split off"; timeout 60 ./ferroflash bench $X --row-split off 2>&1 | grep -v "^device\|ceilings" | cut -c1-200
  echo "== round $round main"; timeout 60 ./ab/ferroflash-main bench $X 2>&1 | grep -v "^device\|ceilings" | cut -c1-200
done > "$R/ab-extras.log" 2>&1
cat "$R/ab-extras.log"
OUT=$R timeout 150 bash run.sh sanitize row_split > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
for b in ./ferroflash ./ab/ferroflash-main; do
  echo "== W $b"; timeout 70 $b bench 2>&1 | grep -v "^device" | cut -c1-200
done > "$R/ab-w.log" 2>&1
cat "$R/ab-w.log"
tar czf "$OUT/s10b.tgz" -C /tmp s10b
