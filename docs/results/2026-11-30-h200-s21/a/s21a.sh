#!/usr/bin/env bash
# s21a: shapes outside W1-W7/X1-X12 (docs/results/2026-11-30-h200-s21/a/sweep.toml), FlashInfer
# fi_decode_tc side by side with ferroflash, to look for cliffs in the split heuristic; then
# the GPU suite on main (session 20's last test edit had not run on the H200).
cd "$(dirname "$0")/../.."
R=/tmp/s21a; P=/tmp/s21a-peers; mkdir -p $R $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=docs/results/2026-11-30-h200-s21/a/sweep.toml
OUT=$P PHASES="fi_decode_tc:200" timeout 210 bash .peers/run_device.sh --workload-file $S > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 200 $B bench --workload-file $S --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1; cp $P/raw.jsonl $P/env.json $R/
timeout 150 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
