#!/usr/bin/env bash
# s19a: peers (fi_decode_tc, fi_prefill_fa3, fi_xqa; prebuilt modules only) on the extra
# workloads W7, X1-X12, ferroflash (main f4e79f6) on the same shapes in the same table; then the suite.
cd "$(dirname "$0")/../.."
R=/tmp/s19a; P=$R/peers; mkdir -p $P
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
W=W7,X1,X2,X3,X4,X5,X6,X7,X8,X9,X10,X11,X12
OUT=$P FLASHINFER_DISABLE_JIT=1 PHASES="fi_decode_tc:170 fi_prefill_fa3:70 fi_xqa:70" timeout 320 bash .peers/run_device.sh --workload-file benches/workloads-extra.toml --workloads $W > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 110 target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads $W --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench-extra.log 2>&1; echo "extra rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
left=$((585-SECONDS)); [ $left -gt 20 ] && { timeout $left target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log; }
rm -f $P/pip.log $P/log.txt $P/nvidia-smi.txt
cp -r $R "$OUT/"
