#!/usr/bin/env bash
# s17d: side by side with FlashInfer (fi_decode_tc) on W1-W6 in one run, then ferroflash on
# W1-W6 and extras against the peers' ceilings, one report (main 13ee826); W1 split counts.
cd "$(dirname "$0")/../.."
R=/tmp/s17d; P=$R/peers; mkdir -p $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
target/bundle/gpu-tests prim/sreg > /dev/null 2>&1
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1
echo "peers rc $?"
timeout 90 target/bundle/ferroflash bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1
timeout 80 target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads W7,X1,X2,X3,X4,X5,X6,X7,X8,X9,X10,X11 --jsonl $R/raw-extra.jsonl --env-json $P/env.json >> $R/bench.log 2>&1
echo "bench rc $?"
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
for s in 24 33; do timeout 40 target/bundle/ferroflash bench --workloads W1 --splits $s --env-json $P/env.json | grep '^W1' >> $R/w1-splits.log 2>&1; done
timeout 40 target/bundle/ferroflash bench --workloads W1 --env-json $P/env.json | grep '^W1' >> $R/w1-splits.log 2>&1
cp -r $R "$OUT/"
