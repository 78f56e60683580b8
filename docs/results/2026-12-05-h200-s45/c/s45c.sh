#!/usr/bin/env bash
# Session 45 call c: bundle = main + change 125 (lone cap per GPU, `--plan-dram-tbps`), branch
# exp/125b. On an H200: fi_decode_tc on W1-W6, ferroflash bench W1-W6 twice and W7 with the
# peers' env, the GPU suite, plan-only of W1-W7 at this GPU's and at an H100's bandwidth.
# On an H100: the GPU suite, plan-only over every workload file at this GPU's bandwidth (125)
# and at the H200's (4.9167 TB/s: the plans before 125), plandiff.py, then bench of the shapes
# whose plan differs both ways, two interleaved rounds (--rot-gib 0.5).
# Inputs: w7.toml and sweep44.toml from docs/results/2026-12-05-h200-s44/b/, copied into target/bundle.
cd "$(dirname "$0")/../.."
R=/tmp/s45c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s45c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
if grep -q H200 $R/gpu.txt; then
  W=$R/w; mkdir -p $W
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  timeout 70 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
  timeout 40 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
  timeout 70 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
  timeout 30 $B bench --plan-only > $R/plan-w-default.log 2>&1
  timeout 30 $B bench --plan-only --plan-dram-tbps 3.3523 > $R/plan-w-h100bw.log 2>&1; save "plans"
  rem=$((585 - (SECONDS - start)))
  timeout $rem bash target/bundle/run.sh tests > $R/suite.log 2>&1; save "suite rc $?"
  exit 0
fi
timeout 330 bash target/bundle/run.sh tests > $R/suite.log 2>&1; save "suite rc $?"
files="target/bundle/workloads.toml target/bundle/workloads-extra.toml target/bundle/workloads-random.toml target/bundle/workloads-sweep.toml target/bundle/workloads-short.toml target/bundle/workloads-d256.toml target/bundle/sweep44.toml"
mkdir -p $R/plan-old $R/plan-new
for f in $files; do
  timeout 60 $B bench --plan-only --workload-file $f > $R/plan-new/$(basename $f .toml).log 2>&1
  timeout 60 $B bench --plan-only --plan-dram-tbps 4.9167 --workload-file $f > $R/plan-old/$(basename $f .toml).log 2>&1
  save "plans $f"
done
python3 target/bundle/plandiff.py $R/plan-old $R/plan-new $R/diff.toml $files > $R/plandiff.txt 2>&1; save "plandiff rc $?"
if [ -s $R/diff.toml ]; then
  for round in 1 2; do
    for bw in 4.9167 default; do
      rem=$((570 - (SECONDS - start))); [ $rem -gt 15 ] || break 2
      a=""; [ $bw = default ] || a="--plan-dram-tbps $bw"
      timeout $rem $B bench --workload-file $R/diff.toml --rot-gib 0.5 $a > $R/bench-$bw-$round.log 2>&1; save "bench $bw round $round rc $?"
    done
  done
fi
