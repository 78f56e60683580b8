#!/usr/bin/env bash
# Session 14, call f: steady-state bandwidth against row granularity (bytes per token and kv head):
# 1 GiB-class workloads, bf16 and e4m3 K/V at head dims 64/128/256 (main's build).
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s14f; mkdir -p $R
cd "$here"
for f in ab/ferroflash-main.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
timeout 200 ./ab/ferroflash-main bench --workload-file granularity.toml 2>&1 | grep -v "^device" | cut -c1-150 | tee $R/gran.log
timeout 100 ./ab/ferroflash-main bench --workload-file granularity.toml --workloads F128,F256 --narrow off 2>&1 | grep -v "^device\|^workload" | cut -c1-150 | tee -a $R/gran.log
cp $R/gran.log "$OUT/"
