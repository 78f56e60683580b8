#!/usr/bin/env bash
# s21b: split counts forced on the shapes where call a lost to FlashInfer or filled few slots,
# to calibrate a split model (no code change; `ferroflash bench --splits N`).
cd "$(dirname "$0")/../.."
R=/tmp/s21b; mkdir -p $R
for f in target/bundle/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=docs/results/2026-11-30-h200-s21/b/shapes.toml
run() { local w=$1; shift; for s in "$@"; do echo "== $w splits $s" >> $R/splits.log; timeout 40 $B bench --workload-file $S --workloads $w --splits $s >> $R/splits.log 2>&1; done; echo "$w t=$((SECONDS-start))" >> $R/steps.log; }
run S-b12-8192 auto 4 5 8 12
run S-b24-6000 auto 2 4 6 8
run S-b34-4096 auto 1 2 8
run S-b48-2048 auto 1 4
run S-fp8-b34-4k auto 2 4 8
run S-fp8-b12-8192 auto 4 6 8 12
run S-fp8-b24-6000 auto 2 4 6
run S-rag-3long-20short auto 4 8
run S-b6-12000 auto 8 11
cp -r $R "$OUT/"
