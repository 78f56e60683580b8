#!/usr/bin/env bash
# Session 8, call f: the GPU suite and the sanitizers on the narrow test after the consumer
# helpers refactor (kernels changed in form, not in registers or SASS counts), then W2/W5.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
timeout 130 bash run.sh tests > "$OUT/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$OUT/tests.log" | cut -c1-400 | head -10
timeout 100 bash run.sh sanitize narrow_rows > "$OUT/sanitize.log" 2>&1; echo "sanitize rc $?"
rm -f "$OUT"/sanitize-*.log
grep -E "SUMMARY|exit|passed" "$OUT/sanitize.log"
timeout 30 ./ferroflash bench --workloads W2,W5 2>&1 | grep -E "^(W|ceil)" | cut -c1-160 | tee "$OUT/bench.log"
