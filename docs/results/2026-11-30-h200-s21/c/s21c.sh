#!/usr/bin/env bash
# s21c: the split model (host/src/split_model.rs) in the planner: the GPU suite; W1-W6 and
# FlashInfer side by side; the shapes of calls a and b (automatic splits) side by side.
cd "$(dirname "$0")/../.."
R=/tmp/s21c; P=/tmp/s21c-peers; Q=/tmp/s21c-peers-shapes; mkdir -p $R $P $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=docs/results/2026-11-30-h200-s21/b/shapes.toml
timeout 150 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 $B bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
OUT=$Q PHASES="fi_decode_tc:200" timeout 150 bash .peers/run_device.sh --workload-file $S > $R/peers-shapes.log 2>&1; echo "peers shapes rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 200 $B bench --workload-file $S --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-shapes.log 2>&1; echo "bench shapes rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-shapes.txt 2>&1
cp -r $R "$OUT/"
