#!/usr/bin/env bash
# For session 58 (main at or after bbea806; never run): the test parts session 57 wrote after
# its last device call, and the H200 standing when an H200 comes.
# 0. on an H200 only: W1-W6 beside fi_decode_tc, twice (kernels of W1-W6 unchanged since
#    session 42 but for register numbering), then padded.toml (head dims 80-192).
# 1. the graph case (padded head dims 192, 80 clustered, 96 row-split over HND) and the padded
#    case (HND pages in every third case); memcheck and racecheck on both.
# 2. the whole suite.
# Copy this script and ../c/padded.toml to target/bundle/ (the script as call.sh), carry
# ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s58a
if is_h200; then
  peers_w $R/peers
  for i in 1 2; do timeout 20 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w$i.log 2>&1; save "bench w$i rc $?"; done
  timeout 30 $B bench --workload-file target/bundle/padded.toml --rot-gib 0.5 > $R/bench-padded.log 2>&1; save "bench padded rc $?"
fi
timeout 60 $T graph > $R/t-graph.log 2>&1; save "graph rc $? ($(grep -E 'passed,' $R/t-graph.log))"
timeout 60 $T padded > $R/t-padded.log 2>&1; save "padded rc $? ($(grep -E 'passed,' $R/t-padded.log))"
sanitize memcheck decode/padded
sanitize racecheck decode/padded
sanitize memcheck decode/cuda_graph
[ $((SECONDS-start)) -lt $((LIMIT-170)) ] && { timeout 170 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"; }
sanitize racecheck decode/cuda_graph
