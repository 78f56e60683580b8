#!/usr/bin/env bash
# Session 14, call g: W5 against the same bytes as kv-head pairs (head dim 256, 8 rows), main's build.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
for f in ab/ferroflash-main.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
for r in 1 2; do
timeout 60 ./ab/ferroflash-main bench --workloads W2,W5 2>&1 | grep -v "^device\|^workload" | cut -c1-160
timeout 100 ./ab/ferroflash-main bench --workload-file pair.toml 2>&1 | grep -v "^device\|^workload" | cut -c1-160
done | tee "$OUT/pair.log"
