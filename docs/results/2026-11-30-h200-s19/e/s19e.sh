#!/usr/bin/env bash
# s19e: TMA tiles (the lane's box hoisted, 16-bit row-split variants without the path): the
# suite, memcheck on the TMA test, FlashInfer side by side on W1-W6 with ferroflash (TMA on, the
# default), then spec-decode and fp8 extras with --tma on / off.
cd "$(dirname "$0")/../.."
R=/tmp/s19e; P=/tmp/s19e-peers; mkdir -p $R $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 150 target/bundle/gpu-tests > $R/checks.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests decode/tma >> $R/checks.log 2>&1; echo "memcheck rc $? t=$((SECONDS-start))" >> $R/steps.log
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 target/bundle/ferroflash bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1; cp $P/raw.jsonl $R/
for m in on off; do
left=$((585-SECONDS)); [ $left -gt 20 ] || break
timeout $(( left < 75 ? left : 75 )) target/bundle/ferroflash bench --tma $m --env-json $P/env.json --workload-file benches/workloads-extra.toml --workloads X3,X9,X10,X11,X12 > $R/extra-$m.log 2>&1; echo "extra $m rc $? t=$((SECONDS-start))" >> $R/steps.log
done
cp -r $R "$OUT/"
