#!/usr/bin/env bash
# s19b: peers (fi_decode_tc, fi_prefill_fa3, fi_xqa; prebuilt modules only) on the extra
# workloads the peers' loader takes (all but X6, all-fp8), ferroflash on the same shapes.
cd "$(dirname "$0")/../.."
R=/tmp/s19b; P=$R/peers; mkdir -p $P
for f in target/bundle/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
python3 - <<'PY'
t = open("benches/workloads-extra.toml").read().split("[[workload]]")
open("/tmp/s19b/extra-peers.toml", "w").write("[[workload]]".join(p for p in t if "X6-" not in p))
PY
W=W7,X1,X2,X3,X4,X5,X7,X8,X9,X10,X11,X12
OUT=$P FLASHINFER_DISABLE_JIT=1 PHASES="fi_decode_tc:200 fi_prefill_fa3:70 fi_xqa:70" timeout 350 bash .peers/run_device.sh --workload-file $R/extra-peers.toml --workloads $W > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
left=$((560-SECONDS))
timeout $left target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads X3,X8,X9,X10,X11,X12,X1,X2 --jsonl $P/raw.jsonl --env-json $P/env.json > $R/bench-extra.log 2>&1; echo "extra rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $P --report > $R/report.txt 2>&1
rm -f $P/pip.log $P/log.txt $P/nvidia-smi.txt
cp -r $R "$OUT/"
