#!/usr/bin/env bash
# s21e: the final build (split model, one wave unless more pay by 5%): the GPU suite; FlashInfer
# fi_decode_tc side by side with ferroflash on the shapes of calls a and b.
cd "$(dirname "$0")/../.."
R=/tmp/s21e; Q=/tmp/s21e-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=docs/results/2026-11-30-h200-s21/b/shapes.toml
timeout 150 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
OUT=$Q PHASES="fi_decode_tc:200" timeout 150 bash .peers/run_device.sh --workload-file $S > $R/peers-shapes.log 2>&1; echo "peers shapes rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 200 $B bench --workload-file $S --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-shapes.log 2>&1; echo "bench shapes rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-shapes.txt 2>&1
cp -r $R "$OUT/"
