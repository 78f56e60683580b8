#!/usr/bin/env bash
# s22d: the graph test with a balanced plan (and memcheck/racecheck on it); shapes not used to
# set the balanced-plan rules and more fp8 shapes, planner's choice against forced off and on.
cd "$(dirname "$0")/../.."
R=/tmp/s22d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
M=docs/results/2026-11-30-h200-s22/d/more.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 target/bundle/gpu-tests graph > $R/graph.log 2>&1; echo "graph rc $? t=$((SECONDS-start))" >> $R/steps.log
for tool in memcheck racecheck; do
  timeout 100 $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests graph > $R/graph-$tool.log 2>&1; echo "$tool rc $? t=$((SECONDS-start))" >> $R/steps.log
done
for bal in auto off on; do
  timeout 70 $B bench --workload-file $M --balance $bal > $R/more-$bal.log 2>&1; echo "more $bal rc $? t=$((SECONDS-start))" >> $R/steps.log
done
cd $R && grep -h "SUMMARY" graph-*.log > sanitizer-summary.txt; rm -f graph-memcheck.log graph-racecheck.log.keep; cp graph.log steps.log sanitizer-summary.txt more-*.log "$OUT/"
