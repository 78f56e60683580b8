#!/usr/bin/env bash
# Session 48 call a (same script as s47a): bundle = exp/125b (main + change 125, the split model's lone cap per GPU,
# with `--plan-dram-tbps`) + the fast `--plan-only`. The GPU suite of this bundle passed on an
# H100 in session 46 (its one call, s45c), which ran out of time in its plan-only step.
# On an H100: the shapes whose plan differs between this GPU's bandwidth (125) and the H200's
# (4.9167 TB/s: the plans before 125), interleaved A/B rounds (--rot-gib 0.5) until the time
# is spent.
# On an H200: fi_decode_tc on W1-W6, ferroflash bench W1-W6 twice and W7 with the peers' env,
# then the GPU suite (this bundle's; its H200 plans are main's by construction).
cd "$(dirname "$0")/../.."
R=/tmp/s48a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s48a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
if grep -q H200 $R/gpu.txt; then
  W=$R/w; mkdir -p $W
  OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
  timeout 80 $B bench --jsonl $W/raw.jsonl --env-json $W/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
  timeout 40 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
  timeout 80 $B bench --env-json $W/env.json > $R/bench-w2.log 2>&1; save "bench w2 rc $?"
  timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
  exit 0
fi
# The shapes whose plan 125 changes on an H100: plandiff.py over session 46's plan-only logs
# (six of the seven files; sweep44.toml's plans did not come back), diff46.toml.
cp target/bundle/diff46.toml $R/diff.toml
if [ -s $R/diff.toml ]; then
  left=6
  for round in 1 2 3; do
    for bw in 4.9167 default; do
      rem=$(( (570 - (SECONDS - start)) / left )); left=$((left - 1)); [ $rem -gt 15 ] || break 2
      a=""; [ $bw = default ] || a="--plan-dram-tbps $bw"
      timeout $rem $B bench --workload-file $R/diff.toml --rot-gib 0.5 $a > $R/bench-$bw-$round.log 2>&1; save "bench $bw round $round rc $?"
    done
  done
fi
