#!/usr/bin/env bash
# s22c: the final build (balanced plans chosen by the planner): the GPU suite; memcheck and
# racecheck on the balanced test; W1-W6; the sweep and balance.toml with the planner's choice;
# fi_decode_tc side by side on balance.toml.
cd "$(dirname "$0")/../.."
R=/tmp/s22c; Q=/tmp/s22c-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=target/bundle/workloads-sweep.toml
X=docs/results/2026-11-30-h200-s22/b/balance.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests balanced > $R/test-$tool.log 2>&1; echo "$tool rc $? t=$((SECONDS-start))" >> $R/steps.log
done
OUT=$Q PHASES="fi_decode_tc:90" timeout 90 bash .peers/run_device.sh --workload-file $X > $R/peers-b.log 2>&1; echo "peers b rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 $B bench --workload-file $X --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-b.log 2>&1; echo "bench b rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-b.txt 2>&1
timeout 60 $B bench > $R/bench-w.log 2>&1; echo "bench w rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 190 $B bench --workload-file $S > $R/bench-sweep.log 2>&1; echo "bench sweep rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
