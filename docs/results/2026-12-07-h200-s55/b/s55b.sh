#!/usr/bin/env bash
# Session 55 call b: a ninth random draw (seed 55 of docs/results/2026-12-01-h200-s25/gen_sweep.py,
# 40 shapes): first mt55.toml (17-32 rows at 2500-6144 tiles) auto against --m-tiles 1,
# then `ferroflash check` on all of them, then side by side with fi_decode_tc on the 18
# rows it has prebuilt modules for. Copy this script, mt55.toml, sweep55.toml and sweep55-peers.toml to
# target/bundle/ (the script as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s55b
Q=$R/q; mkdir -p $Q
for mt in auto 1 auto 1; do
  timeout 25 $B bench --workload-file target/bundle/mt55.toml --rot-gib 0.5 --m-tiles $mt > $R/bench-mt55-$mt-$SECONDS.log 2>&1; save "mt55 m-tiles $mt rc $?"
done
timeout 150 $B check --workload-file target/bundle/sweep55.toml > $R/check-sweep55.log 2>&1; save "check rc $? ($(tail -1 $R/check-sweep55.log))"
OUT=$Q PHASES="fi_decode_tc:150" FLASHINFER_DISABLE_JIT=1 timeout 160 bash .peers/run_device.sh --workload-file target/bundle/sweep55-peers.toml > $R/peers-q.log 2>&1; save "peers q rc $?"
rem=$((LIMIT - (SECONDS - start) - 10))
[ $rem -gt 30 ] && { timeout $rem $B bench --workload-file target/bundle/sweep55-peers.toml --rot-gib 0.5 --env-json $Q/env.json --jsonl $Q/raw.jsonl > $R/bench-sweep55.log 2>&1; save "bench sweep rc $?"; }
[ -f $Q/raw.jsonl ] && python3 .peers/bench_decode.py --out $Q --report > $R/report-q.log 2>&1; save "report rc $?"
