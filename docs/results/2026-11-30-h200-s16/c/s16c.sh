#!/usr/bin/env bash
# s16c: narrow fp8 ring 48 KiB (main, 4 CTAs/SM) vs 96 KiB (2/SM) vs 64 KiB (3/SM).
set -u
cd "$(dirname "$0")"
for f in ab/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
for r in 1 2; do
  for b in main16 ring96 ring64; do
    echo "== round $r $b"
    timeout 100 ./ab/$b bench --workloads W5 | grep -v '^device'
    timeout 100 ./ab/$b bench --workload-file workloads-extra.toml --workloads X5,X6,X7 | grep -v '^device\|^ceil\|^workload'
  done
done > "$OUT/ab.log" 2>&1
mkdir -p "$OUT/tl"
timeout 100 ./ab/ring96 bench --workloads W5 --timeline "$OUT/tl" > "$OUT/tl96.log" 2>&1
