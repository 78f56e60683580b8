#!/usr/bin/env bash
# Session 10, call f: the 128-byte-swizzle wgmma attention step (prim/wgmma_sw128_attention_step)
# and the other wgmma primitives.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s10f; mkdir -p $R
cd "$here"
timeout 60 bash run.sh tests prim/ > "$R/prim.log" 2>&1; echo "prim rc $?"
grep -E "^(PASS|FAIL|SKIP)|passed" "$R/prim.log" | cut -c1-700
OUT=$R timeout 90 bash run.sh sanitize wgmma_sw128 > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
rm -f $R/sanitize-memcheck.log $R/sanitize-racecheck.log $R/sanitize-synccheck.log
tar czf "$OUT/s10f.tgz" -C /tmp s10f
