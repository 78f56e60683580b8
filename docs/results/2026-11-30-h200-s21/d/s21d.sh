#!/usr/bin/env bash
# s21d: the final build (split model with LONE_SPEEDUP 1.3): the GPU suite; same-process A/B
# of the automatic plan against the previous heuristic's CTA count (forced with --splits) on
# the shapes whose plan changed, two rounds.
cd "$(dirname "$0")/../.."
R=/tmp/s21d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=docs/results/2026-11-30-h200-s21/b/shapes.toml
timeout 150 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
ab() { local w=$1; shift; for s in "$@"; do echo "== $w splits $s" >> $R/ab.log; timeout 40 $B bench --workload-file $S --workloads $w --splits $s >> $R/ab.log 2>&1; done; }
for round in 1 2; do
  ab S-b1-131072 auto 33
  ab S-mqa-b16-4k auto 8
  ab S-b6-12000 auto 5
  ab S-b4-4096 auto 8
  ab S-b24-6000 auto 1
  echo "round $round t=$((SECONDS-start))" >> $R/steps.log
done
timeout 60 $B bench --workload-file $S --workloads S-rag-1long-7short,S-rag-3long-20short,S-rag-mixed-40,S-b12-8192 >> $R/ab.log 2>&1
timeout 60 $B bench --workloads W1,W2,W5,W6 > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
