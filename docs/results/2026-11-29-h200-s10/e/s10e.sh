#!/usr/bin/env bash
# Session 10, call e: the graph-mode test after its over-capacity case follows the capacity,
# with sanitizers; the row-split test once more.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s10e; mkdir -p $R
cd "$here"
bash run.sh tests prim/sreg > /dev/null 2>&1  # unpack binaries
timeout 120 bash run.sh tests graph > "$R/tests-graph.log" 2>&1; echo "graph rc $?"
grep -E "^(PASS|FAIL)|passed" "$R/tests-graph.log" | cut -c1-600
timeout 60 bash run.sh tests row_split > "$R/tests-row-split.log" 2>&1; echo "row_split rc $?"
grep -E "^(PASS|FAIL)|passed" "$R/tests-row-split.log" | cut -c1-600
OUT=$R timeout 150 bash run.sh sanitize graph > "$R/sanitize-graph.log" 2>&1; echo "sanitize graph rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize-graph.log"
rm -f $R/sanitize-memcheck.log $R/sanitize-racecheck.log $R/sanitize-synccheck.log
tar czf "$OUT/s10e.tgz" -C /tmp s10e
