#!/usr/bin/env bash
# Session 38, call c (branch experiment/kv-evict-first): `cargo xtask bundle`, `rm -rf
# target/bundle/ptx`, main's ferroflash as target/bundle/ferroflash-main.xz, this script copied
# in; carry ["target/bundle"]. Main, new, main, new on W1/W2/W5/W6 (as time allows), then the
# early-K/V test and the combine test on the new binary.
cd "$(dirname "$0")/../.."
R=/tmp/s38c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s38c-logs.tgz" .); }
timeout 40 $M bench --workloads W1,W2,W5,W6 > $R/w-main-r1.log 2>&1; save "w main r1 rc $?"
timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w-new-r1.log 2>&1; save "w new r1 rc $?"
timeout 30 target/bundle/gpu-tests combine_parts > $R/t-combine.log 2>&1; save "test combine rc $?"
timeout 30 target/bundle/gpu-tests early_kv_tiles > $R/t-early.log 2>&1; save "test early rc $?"
[ $((SECONDS-start)) -lt 60 ] && { timeout 30 $M bench --workloads W1,W2,W5,W6 > $R/w-main-r2.log 2>&1; save "w main r2 rc $?"; }
[ $((SECONDS-start)) -lt 90 ] && { timeout 30 $B bench --workloads W1,W2,W5,W6 > $R/w-new-r2.log 2>&1; save "w new r2 rc $?"; }
