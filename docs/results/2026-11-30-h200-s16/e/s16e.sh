#!/usr/bin/env bash
# s16e: main (HND layout, report fix) W1-W6 table; the whole GPU suite under memcheck, racecheck
# and synccheck (FF_LONG_KV=640).
set -u
cd "$(dirname "$0")"
OUT=$OUT bash run.sh bench > "$OUT/bench.log" 2>&1
timeout 480 bash run.sh sanitize > "$OUT/sanitize.log" 2>&1; echo "sanitize rc $?" >> "$OUT/sanitize.log"
