#!/usr/bin/env bash
# Session 54 call c, short form for a call of ~2 minutes (the session's device time nearly
# spent): one A/B round of mt54.toml (auto against --m-tiles 2), then the suite cases change 132
# touches (cluster merge with pinned m tiles, the sweep with automatic m tiles, row split).
. "$(dirname "$0")/call-lib.sh" s54c
M=target/bundle/mt54.toml
for mt in auto 2; do
  timeout 15 $B bench --workload-file $M --rot-gib 0.5 --m-tiles $mt > $R/bench-$mt-1.log 2>&1; save "bench m-tiles $mt rc $?"
done
for f in cluster_merge sweep_dims row_split; do
  rem=$((LIMIT - (SECONDS-start) - 5)); [ $rem -gt 5 ] || break
  timeout $rem $T $f > $R/t-$f.log 2>&1; save "$f rc $? ($(grep -E 'passed,' $R/t-$f.log))"
done
