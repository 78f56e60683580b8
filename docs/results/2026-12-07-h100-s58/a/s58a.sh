#!/usr/bin/env bash
# Session 58 call a (branch exp/137-l2-128 = main 0388a58 + change 136 + experiment 137): the test parts session 57
# wrote after its last call (graph replay at padded head dims, HND in the padded case, the
# mended padded cluster merge), change 136's padded fp8 K/V cases, their sanitizers, the
# suite (the W1-W6 kernels are unchanged since session 42: no standing run here; the tree with
# .peers is over the tool's 64 MiB). Copy this script, padfp8.toml and padded.toml to target/bundle/ (the
# script as call.sh), carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s58a
timeout 60 $T padded > $R/t-padded.log 2>&1; save "padded rc $? ($(grep -E 'passed,' $R/t-padded.log))"
timeout 60 $T graph > $R/t-graph.log 2>&1; save "graph rc $? ($(grep -E 'passed,' $R/t-graph.log))"
timeout 40 $B check --workload-file target/bundle/padfp8.toml > $R/check-padfp8.log 2>&1; save "check padfp8 rc $? ($(grep -c PASS $R/check-padfp8.log) PASS)"
# Experiment 137 (.L2::128B on the padded kernels' K/V copies), A/B/A/B in one process each.
for r in 1 2; do
  for x in base exp; do
    if [ $x = exp ]; then export FF_EXP_L2_128=1; else unset FF_EXP_L2_128; fi
    for f in padfp8 padded; do
      timeout 45 $B bench --workload-file target/bundle/$f.toml --rot-gib 1 > $R/bench-$f-$x$r.log 2>&1; save "bench $f $x$r rc $?"
    done
  done
done
unset FF_EXP_L2_128
sanitize memcheck decode/padded
sanitize racecheck decode/padded
sanitize memcheck decode/cuda_graph
[ $((SECONDS-start)) -lt $((LIMIT-170)) ] && { timeout 170 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"; }
[ $((SECONDS-start)) -lt $((LIMIT-100)) ] && { FF_SOAK_LAUNCHES=4000 timeout 90 $T soak > $R/soak.log 2>&1; save "soak rc $? ($(grep -E 'passed,' $R/soak.log))"; }
sanitize racecheck decode/cuda_graph
sanitize initcheck decode/padded
