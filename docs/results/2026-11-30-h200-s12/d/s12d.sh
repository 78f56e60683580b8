#!/usr/bin/env bash
# Session 12, call d: side by side with FlashInfer (fi_decode_tc) on W1-W6, then ferroflash on
# W1-W6 and the extras against the peers' ceilings, one report; sanitizers on the cluster tests.
cd "$(dirname "$0")/../.."
R=/tmp/s12d; P=$R/peers; mkdir -p $P
bash target/bundle/run.sh tests prim/sreg > /dev/null 2>&1
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1
echo "peers rc $?"
timeout 90 target/bundle/ferroflash bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1
timeout 60 target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads W7,X3,X5,X6,X8,X11 --jsonl $R/raw-extra.jsonl --env-json $P/env.json >> $R/bench.log 2>&1
cut -c1-200 $R/bench.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
cat $R/report.txt | head -60
OUT=$R timeout 170 bash target/bundle/run.sh sanitize cluster_merge > $R/sanitize.log 2>&1; echo "sanitize rc $?"; grep -E "SUMMARY|exit" $R/sanitize.log; rm -f $R/sanitize-*.log
tar czf "$OUT/s12d.tgz" -C /tmp s12d
