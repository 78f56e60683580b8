#!/usr/bin/env bash
# Session 54 call a: 1. The whole GPU suite (checks session
# 52's WrongDevice case, session 53's overlap and format cases, session 54's back-to-back
# calls), then memcheck on the back-to-back case. 2. On an H200, W1-W6 side by side
# with fi_decode_tc, two rounds of ours (else one round). 3. Session 52's call c:
# single-request MQA shapes near sweep52's R18 at forced split counts against auto, with
# fi_decode_tc. Copy this script and small52.toml to target/bundle/ (as call.sh), carry
# ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s54a
W=$R/w; mkdir -p $W
ST=$((LIMIT < 220 ? LIMIT - 20 : 200)); timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
sanitize memcheck decode/back_to_back_calls_equal_calls_alone
if is_h200; then
  peers_w $W
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
  done
else
  timeout 40 $B bench > $R/bench-1.log 2>&1; save "bench rc $?"
fi
Q=$R/q; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 70 bash .peers/run_device.sh --workload-file target/bundle/small52.toml > $R/peers-q.log 2>&1; save "peers q rc $?"
for s in auto 13 25 49 65 97; do
  [ $((SECONDS-start)) -lt $((LIMIT-10)) ] || break
  timeout 30 $B bench --workload-file target/bundle/small52.toml --rot-gib 0.5 --splits $s --env-json $Q/env.json > $R/bench-s$s.log 2>&1; save "bench splits $s rc $?"
done
