#!/usr/bin/env bash
# s18d: diagnostic: consumers that only wait for each stage and release it (no S, no P·V; the
# epilogue merges zeros) against main, W1-W6 and fp8 extras; the streaming probe.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 60 ./ferroflash probe > "$OUT/probe.log" 2>&1; echo "probe rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 80 ./ab/noconsume bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/noconsume.log" 2>&1; echo "noconsume rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 60 ./ab/noconsume bench --workload-file workloads-extra.toml --workloads X5,X7 >> "$OUT/noconsume.log" 2>&1; echo "noconsume extra rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
timeout 80 ./ferroflash bench --workloads W1,W2,W3,W4,W5,W6 > "$OUT/main.log" 2>&1; echo "main rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
