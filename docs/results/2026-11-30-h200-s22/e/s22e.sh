#!/usr/bin/env bash
# s22e: the final build (call d's bundle): the 32-shape sweep side by side with fi_decode_tc.
cd "$(dirname "$0")/../.."
R=/tmp/s22e; Q=/tmp/s22e-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/workloads-sweep.toml
OUT=$Q PHASES="fi_decode_tc:120" timeout 100 bash .peers/run_device.sh --workload-file $S > $R/peers-sweep.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 200 target/bundle/ferroflash bench --workload-file $S --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-sweep.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-sweep.txt 2>&1
cp -r $R "$OUT/"
