#!/usr/bin/env bash
# Session 54 call b: 1. the back-to-back case (its graph part fixed: addresses taken before the
# capture) and the graph case, then memcheck and racecheck on the back-to-back case. 2. mt54.toml
# (17-32 packed rows per kv head) with the planner's m tiles against --m-tiles 1, two rounds
# interleaved, and fi_decode_tc on the same file. Copy this script and mt54.toml to
# target/bundle/ (as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s54b
timeout 120 $T back_to_back > $R/b2b.log 2>&1; save "b2b rc $? ($(grep -E 'passed,' $R/b2b.log))"
timeout 120 $T cuda_graph > $R/graph.log 2>&1; save "graph rc $? ($(grep -E 'passed,' $R/graph.log))"
M=target/bundle/mt54.toml
for round in 1 2; do
  for mt in auto 1; do
    timeout 40 $B bench --workload-file $M --rot-gib 0.5 --m-tiles $mt > $R/bench-$mt-$round.log 2>&1; save "bench m-tiles $mt round $round rc $?"
  done
done
Q=$R/q; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 80 bash .peers/run_device.sh --workload-file $M > $R/peers-q.log 2>&1; save "peers q rc $?"
sanitize memcheck decode/back_to_back_calls_equal_calls_alone
sanitize racecheck decode/back_to_back_calls_equal_calls_alone
