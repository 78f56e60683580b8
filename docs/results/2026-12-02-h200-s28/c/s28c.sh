#!/usr/bin/env bash
# s28c: change 96 (short batches past 32 rows per kv head: 16-row CTAs over 16-bit K/V,
# 32-row over fp8). The GPU suite; A/B new (auto) / old (--m-tiles 4) on rows.toml, two
# interleaved rounds; head dim 256 with many rows: --m-tiles 1 / 2 / auto on d256.toml.
cd "$(dirname "$0")/../.."
R=/tmp/s28c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s28c-logs.tgz" .); }
for round in 1 2; do
  timeout 50 $B bench --workload-file target/bundle/rows.toml --rot-gib 0.5 > $R/rows-r$round-new.log 2>&1; save "rows r$round new rc $?"
  timeout 50 $B bench --workload-file target/bundle/rows.toml --rot-gib 0.5 --m-tiles 4 > $R/rows-r$round-old.log 2>&1; save "rows r$round old rc $?"
done
for mt in auto 1 2; do
  timeout 60 $B bench --workload-file target/bundle/d256.toml --m-tiles $mt > $R/d256-m$mt.log 2>&1; save "d256 m$mt rc $?"
done
timeout 260 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
