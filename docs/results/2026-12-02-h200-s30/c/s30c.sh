#!/usr/bin/env bash
# s30c: main's `_d256_g64` (change 98): per-CTA timelines (bench --timeline) of R02, R20 and the
# D-file, to see where a one-CTA-per-SM head-dim-256 CTA's time goes; R20 at forced splits.
cd "$(dirname "$0")/../.."
R=/tmp/s30c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30c-logs.tgz" .); }
timeout 60 $B bench --workload-file target/bundle/d256.toml --workloads R02,R20 --timeline $R/tl > $R/d256-tl.log 2>&1; save "d256 tl rc $?"
timeout 90 $B bench --workload-file target/bundle/d256-rand.toml --rot-gib 0.5 --timeline $R/tl > $R/rand-tl.log 2>&1; save "rand tl rc $?"
for s in 1 3 4; do timeout 40 $B bench --workload-file target/bundle/d256.toml --workloads R20 --splits $s > $R/r20-s$s.log 2>&1; save "r20 s$s rc $?"; done
