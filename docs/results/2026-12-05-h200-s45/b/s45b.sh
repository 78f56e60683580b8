#!/usr/bin/env bash
# plandiff.py lives in ../c/ (identical; copy it into target/bundle).
# Session 45 call b: change 125 (lone cap per GPU). ferroflash = main + bench --plan-only,
# ferroflash-125 = that + 125. (1) plan-only of both over every workload file; (2) plandiff.py
# writes the shapes whose plan differs; (3) bench of both on those shapes, two interleaved rounds
# (--rot-gib 0.5). First, the GPU test suite of main; on an H200 also bench W1-W7 twice (own
# ceiling; no peers in this call).
cd "$(dirname "$0")/../.."
R=/tmp/s45b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s45b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
timeout 330 bash target/bundle/run.sh tests > $R/suite.log 2>&1; save "suite rc $?"
if grep -q H200 $R/gpu.txt; then
  for i in 1 2; do timeout 70 target/bundle/ferroflash bench > $R/bench-w$i.log 2>&1; save "bench w$i rc $?"; done
  timeout 40 target/bundle/ferroflash bench --workload-file target/bundle/w7.toml > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
fi
files="target/bundle/workloads.toml target/bundle/workloads-extra.toml target/bundle/workloads-random.toml target/bundle/workloads-sweep.toml target/bundle/workloads-short.toml target/bundle/workloads-d256.toml target/bundle/sweep44.toml"
for bin in ferroflash ferroflash-125; do
  mkdir -p $R/plan-$bin
  for f in $files; do timeout 60 target/bundle/$bin bench --plan-only --workload-file $f > $R/plan-$bin/$(basename $f .toml).log 2>&1; done
  save "plans $bin"
done
python3 target/bundle/plandiff.py $R/plan-ferroflash $R/plan-ferroflash-125 $R/diff.toml $files > $R/plandiff.txt 2>&1; save "plandiff rc $?"
if [ -s $R/diff.toml ]; then
  for round in 1 2; do
    for bin in ferroflash ferroflash-125; do
      rem=$((560 - (SECONDS - start))); [ $rem -gt 20 ] || break 2
      timeout $rem target/bundle/$bin bench --workload-file $R/diff.toml --rot-gib 0.5 > $R/bench-$bin-$round.log 2>&1; save "bench $bin round $round rc $?"
    done
  done
fi
