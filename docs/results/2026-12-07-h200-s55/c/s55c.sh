#!/usr/bin/env bash
# Session 55 call c: spec decode with 40-128 packed rows per kv head (spec55.toml; R18 of the
# ninth draw, 80 rows, was 44% slower than fi_decode_tc on an H100): the planner's layout
# against the forced ones, then fi_decode_tc on the same file. Copy this script and spec55.toml
# to target/bundle/ (the script as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s55c
F=target/bundle/spec55.toml; Q=$R/q; mkdir -p $Q
for a in "auto" "--m-tiles 1" "--m-tiles 2" "--wgmma off" "--tma off" "--splits 1" "--balance off"; do
  [ "$a" = auto ] && x="" || x="$a"
  timeout 30 $B bench --workload-file $F --rot-gib 0.5 $x > "$R/bench-$(echo $a | tr -d ' -').log" 2>&1; save "bench $a rc $?"
done
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 80 bash .peers/run_device.sh --workload-file $F > $R/peers-q.log 2>&1; save "peers q rc $?"
timeout 30 $B bench --workload-file $F --rot-gib 0.5 --env-json $Q/env.json --jsonl $Q/raw.jsonl > $R/bench-auto2.log 2>&1; save "bench auto 2 rc $?"
python3 .peers/bench_decode.py --out $Q --report > $R/report-q.log 2>&1; save "report rc $?"
