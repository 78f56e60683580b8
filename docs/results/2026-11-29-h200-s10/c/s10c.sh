#!/usr/bin/env bash
# Session 10, call c: row-split consumers with Q fragments read once per k step (change 47).
# Suite, sanitizers on the row-split and cluster tests, spec-decode extras against call b's
# build and main (e359eb0), W1-W7 once.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s10c; mkdir -p $R
cd "$here"
bash run.sh tests prim/sreg > /dev/null 2>&1  # unpack binaries
for b in s10b main; do xz -d -f ab/ferroflash-$b.xz; chmod +x ab/ferroflash-$b; done
timeout 150 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-800 | head -20
X="--workload-file ../../benches/workloads-extra.toml --workloads X3,X8,X9,X10,X11"
for round in 1 2; do
  echo "== round $round new"; timeout 60 ./ferroflash bench $X 2>&1 | grep -v "^device" | cut -c1-200
  echo "== round $round s10b"; timeout 60 ./ab/ferroflash-s10b bench $X 2>&1 | grep -v "^device\|ceilings" | cut -c1-200
done > "$R/ab-extras.log" 2>&1
cat "$R/ab-extras.log"
OUT=$R timeout 150 bash run.sh sanitize row_split > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
OUT=$R timeout 120 bash run.sh sanitize cluster_merge_m32 > "$R/sanitize-cluster.log" 2>&1; echo "sanitize cluster rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize-cluster.log"
echo "== W + extras new"; timeout 70 ./ferroflash bench --jsonl $R/raw.jsonl 2>&1 | grep -v "^device" | cut -c1-200
timeout 90 ./ferroflash bench --workload-file ../../benches/workloads-extra.toml --jsonl $R/raw-extra.jsonl 2>&1 | grep -v "^device\|ceilings" | cut -c1-200
rm -f $R/sanitize-*.log
tar czf "$OUT/s10c.tgz" -C /tmp s10c
