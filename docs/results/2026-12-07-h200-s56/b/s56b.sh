#!/usr/bin/env bash
# Session 56 call b, never run (no machine came): for branch exp/134-d64-g64 (change 134, the
# wgmma consumer at head dim 64, `_d64_g64`); build its bundle there (`cargo xtask bundle`).
# 0. on an H200 only: W1-W6 beside fi_decode_tc (the issues' standing).
# 1. the wgmma case (d64 cases added); d64g.toml: `check`, then auto (`_d64_g64`) against
#    `--wgmma off` (`_d64_w64`, the plan before) twice.
# 2. the whole suite, memcheck on the wgmma case, fi_decode_tc on d64g.toml.
# 3. a tenth random draw (seed 56 of docs/results/2026-12-01-h200-s25/gen_sweep.py): `check` on
#    all 40, fi_decode_tc on the 17 rows it has modules for (sweep56-peers.toml).
# 4. racecheck on the wgmma case.
# Copy this script, d64g.toml, sweep56.toml and sweep56-peers.toml to target/bundle/ (the script
# as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s56b
if is_h200; then
  peers_w $R/peers
  timeout 15 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
fi
timeout 60 $T wgmma > $R/t-wgmma.log 2>&1; save "wgmma rc $? ($(grep -E 'passed,' $R/t-wgmma.log))"
G=target/bundle/d64g.toml; Q=$R/q; mkdir -p $Q
timeout 60 $B check --workload-file $G > $R/check-d64g.log 2>&1; save "check d64g rc $? ($(grep -c '^PASS' $R/check-d64g.log) PASS, $(grep -c '^FAIL' $R/check-d64g.log) FAIL)"
for a in auto off auto off; do
  timeout 25 $B bench --workload-file $G --rot-gib 0.5 --wgmma $a > $R/bench-d64g-$a-$SECONDS.log 2>&1; save "bench d64g wgmma $a rc $?"
done
timeout 200 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
sanitize memcheck decode/wgmma
[ $((SECONDS-start)) -lt $((LIMIT-60)) ] && { OUT=$Q PHASES="fi_decode_tc:45" FLASHINFER_DISABLE_JIT=1 timeout 55 bash .peers/run_device.sh --workload-file $G > $R/peers-d64g.log 2>&1; save "peers d64g rc $?"; }
S=$R/s; mkdir -p $S
if [ $((SECONDS-start)) -lt $((LIMIT-120)) ]; then
  timeout 90 $B check --workload-file target/bundle/sweep56.toml > $R/check-sweep56.log 2>&1; save "check sweep56 rc $? ($(grep -c '^PASS' $R/check-sweep56.log) PASS, $(grep -c '^FAIL' $R/check-sweep56.log) FAIL)"
  OUT=$S PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 70 bash .peers/run_device.sh --workload-file target/bundle/sweep56-peers.toml > $R/peers-sweep56.log 2>&1; save "peers sweep56 rc $?"
  timeout 40 $B bench --workload-file target/bundle/sweep56-peers.toml --rot-gib 0.5 --env-json $S/env.json --jsonl $S/raw.jsonl > $R/bench-sweep56.log 2>&1; save "bench sweep56 rc $?"
  [ -f $S/raw.jsonl ] && python3 .peers/bench_decode.py --out $S --report > $R/report-sweep56.log 2>&1
fi
sanitize racecheck decode/wgmma
