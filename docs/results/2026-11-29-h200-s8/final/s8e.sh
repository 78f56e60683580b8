#!/usr/bin/env bash
# Session 8, call e: GPU suite, sanitizers on the narrow test, final bench W1-W6 and extras.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
timeout 200 bash run.sh tests > "$OUT/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$OUT/tests.log" | cut -c1-600 | head -20
timeout 200 bash run.sh sanitize narrow_rows > "$OUT/sanitize.log" 2>&1; echo "sanitize rc $?"
rm -f "$OUT"/sanitize-*.log
grep -E "SUMMARY|exit|passed" "$OUT/sanitize.log"
timeout 120 ./ferroflash bench --jsonl "$OUT/raw.jsonl" > "$OUT/bench-final.log" 2>&1
timeout 120 ./ferroflash bench --workload-file ../../benches/workloads-extra.toml --workloads W7,X1,X2,X3,X5,X6,X7,X8,X9 --jsonl "$OUT/raw-extra.jsonl" >> "$OUT/bench-final.log" 2>&1
grep -vE "^\s*$" "$OUT/bench-final.log" | cut -c1-190
