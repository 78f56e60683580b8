#!/usr/bin/env bash
# Session 55 call a (main at 4ae448c, change 132 + the review commit, + the far-pages case):
# 0. the new far-pages case alone. 1. the whole GPU suite.
# 2. Change 132's A/B on mt54.toml (auto against --m-tiles 2). 3. W1-W6 beside fi_decode_tc.
# 4. memcheck / racecheck on the cases change 132 and session 54 touched, as time allows.
# Copy this script and ../../2026-12-06-h200-s54/b/mt54.toml to target/bundle/ (as call.sh),
# carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s55a
M=target/bundle/mt54.toml
timeout 60 $T far_pages > $R/t-far.log 2>&1; save "far pages rc $? ($(grep -E 'passed,' $R/t-far.log))"
timeout 200 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
for mt in auto 2 auto 2; do
  [ $((SECONDS-start)) -lt $((LIMIT-60)) ] || break
  timeout 15 $B bench --workload-file $M --rot-gib 0.5 --m-tiles $mt > $R/bench-$mt-$SECONDS.log 2>&1; save "bench m-tiles $mt rc $?"
done
if [ $((SECONDS-start)) -lt $((LIMIT-50)) ]; then
  peers_w $R/peers
  timeout 15 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
fi
for c in "memcheck decode/far_pages" "memcheck decode/back_to_back" "racecheck decode/back_to_back" "memcheck decode/cluster_merge" "racecheck decode/cluster_merge" "racecheck decode/cuda_graph" "memcheck decode/m_tiles" "memcheck decode/sweep_dims"; do
  sanitize $c || break
done
