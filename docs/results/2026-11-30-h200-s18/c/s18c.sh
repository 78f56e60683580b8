#!/usr/bin/env bash
# s18c: paired merge-scratch stores (change 78) on main with the fp8 _g64 merged: the suite,
# memcheck + synccheck on the wgmma test, FlashInfer (fi_decode_tc) side by side on W1-W6, then
# ferroflash new and base (2fdf63d) against the peers' ceilings, extras on new.
cd "$(dirname "$0")/../.."
R=/tmp/s18c; P=$R/peers; mkdir -p $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle/ab/base.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 150 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck synccheck; do
FF_LONG_KV=640 timeout 60 $CS --tool $tool --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests decode/wgmma > $R/$tool-wgmma.log 2>&1; echo "$tool rc $? t=$((SECONDS-start))" >> $R/steps.log
done
OUT=$P PHASES="fi_decode_tc:120" timeout 130 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 80 target/bundle/ferroflash bench --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench.log 2>&1; echo "new rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 80 target/bundle/ab/base bench --jsonl $R/raw-base.jsonl --env-json $P/env.json > $R/bench-base.log 2>&1; echo "base rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
timeout 60 target/bundle/ferroflash bench --workloads W1,W2,W5,W6 --env-json $P/env.json > $R/bench2.log 2>&1; echo "new2 rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 90 target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads W7,X1,X2,X3,X4,X5,X6,X7,X8,X9,X10,X11,X12 --jsonl $R/raw-extra.jsonl --env-json $P/env.json > $R/bench-extra.log 2>&1; echo "extra rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
