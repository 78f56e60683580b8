#!/usr/bin/env bash
# Session 56 call a (main at 991f9fb: change 133, the row-block rule, never timed; change 132 and
# the far-pages / back-to-back cases never run on an H200):
# 0. far-pages case alone. 1. spec55.toml auto (change 133) against --balance on, twice.
# 2. fi_decode_tc on spec55. 3. the whole suite. 4. W1-W6 beside fi_decode_tc.
# 5. memcheck on the whole suite, then racecheck on the cases the last sessions touched.
# Copy this script and ../../2026-12-07-h200-s55/c/spec55.toml to target/bundle/ (script as
# call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s56a
F=target/bundle/spec55.toml; Q=$R/q; mkdir -p $Q
timeout 60 $T far_pages > $R/t-far.log 2>&1; save "far pages rc $? ($(grep -E 'passed,' $R/t-far.log))"
for a in auto on auto on; do
  timeout 30 $B bench --workload-file $F --rot-gib 0.5 --balance $a > $R/bench-$a-$SECONDS.log 2>&1; save "bench balance $a rc $?"
done
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 80 bash .peers/run_device.sh --workload-file $F > $R/peers-q.log 2>&1; save "peers q rc $?"
timeout 200 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
if [ $((SECONDS-start)) -lt $((LIMIT-50)) ]; then
  peers_w $R/peers
  timeout 15 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
fi
sanitize memcheck ""
for c in "racecheck decode/back_to_back" "racecheck decode/cluster_merge" "racecheck decode/m_tiles"; do
  sanitize $c || break
done
