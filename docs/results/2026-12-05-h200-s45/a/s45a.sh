#!/usr/bin/env bash
# Session 45 call a: ferroflash = main (code of 4bc6651 + bench --plan-only), ferroflash-125 =
# that + change 125 (lone cap per GPU). (1) fi_decode_tc on W1-W6; (2) ferroflash bench on
# W1-W6 twice and W7 with the peers' env; (3) on an H100: plan-only of both binaries over the
# workload files (which plans 125 changes); on an H200: plan-only on W1-W7 of both;
# (4) the GPU test suite in the time left.
# Inputs: w7.toml and sweep44.toml from docs/results/2026-12-05-h200-s44/b/, copied into target/bundle.
cd "$(dirname "$0")/../.."
R=/tmp/s45a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; B5=
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s45a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
timeout 40 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
if grep -q H100 $R/gpu.txt; then files="target/bundle/workloads-extra.toml target/bundle/workloads-random.toml target/bundle/workloads-sweep.toml target/bundle/workloads-short.toml target/bundle/workloads-d256.toml target/bundle/sweep44.toml"; else files=""; fi
for bin in $B; do
  n=$(basename $bin)
  timeout 60 $bin bench --plan-only --env-json $W/env.json > $R/plan-$n-w.log 2>&1
  for f in $files; do timeout 60 $bin bench --plan-only --workload-file $f --env-json $W/env.json > $R/plan-$n-$(basename $f .toml).log 2>&1; done
  save "plans $n"
done
rem=$((585 - (SECONDS - start)))
timeout $rem bash target/bundle/run.sh tests > $R/suite.log 2>&1; save "suite rc $?"
