#!/usr/bin/env bash
# s20e: the final build: the GPU suite; FlashInfer (fi_decode_tc) side by side with ferroflash
# on W1-W6; the paged read probe on the same cuts against the same ceiling; the graph probe.
cd "$(dirname "$0")/../.."
R=/tmp/s20e; P=/tmp/s20e-peers; mkdir -p $R $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 $B bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1; cp $P/raw.jsonl $P/env.json $R/
timeout 60 $B bench --workloads W1,W2,W5,W6 --paged-probe --env-json $P/env.json > $R/paged-probe.log 2>&1; echo "paged probe rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 30 $B probe --configs 2x1024 >> $R/paged-probe.log 2>&1; echo "probe rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
