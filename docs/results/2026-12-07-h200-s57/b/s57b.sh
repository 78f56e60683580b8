#!/usr/bin/env bash
# Session 57 call b (main at a198010, change 134 merged).
# 0. on an H200 only: W1-W6 beside fi_decode_tc, twice, then the whole suite (changes 132-134
#    have run only on H100s).
# 1. many-row spec decode: the planner's layout against forced ones on spec55.toml (bf16,
#    40-128 rows per kv head) and spec57f.toml (fp8 e4m3 K/V copies plus R08, R19).
# Copy this script, spec55.toml (../../2026-12-07-h200-s55/c/) and spec57f.toml to
# target/bundle/ (the script as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s57b
if is_h200; then
  peers_w $R/peers
  for i in 1 2; do timeout 20 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w$i.log 2>&1; save "bench w$i rc $?"; done
  timeout 200 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
fi
for F in spec55 spec57f; do
  for a in "auto" "--m-tiles 1" "--m-tiles 2" "--wgmma off" "--row-split off" "--tma off"; do
    [ $((SECONDS-start)) -lt $((LIMIT-40)) ] || break
    [ "$a" = auto ] && x="" || x="$a"
    timeout 30 $B bench --workload-file target/bundle/$F.toml --rot-gib 0.5 $x > "$R/bench-$F-$(echo $a | tr -d ' -').log" 2>&1; save "bench $F $a rc $?"
  done
done
[ $((SECONDS-start)) -lt $((LIMIT-60)) ] && { timeout 30 $B bench --workload-file target/bundle/spec57f.toml --rot-gib 0.5 > $R/bench-spec57f-auto2.log 2>&1; save "bench spec57f auto2 rc $?"; }
