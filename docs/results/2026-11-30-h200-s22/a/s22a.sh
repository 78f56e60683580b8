#!/usr/bin/env bash
# s22a: session 21's final build (a0856ff, not yet run on the H200): the GPU suite; memcheck and
# racecheck on `ferroflash check` over the sweep's split-heavy plans (clusters of 7 and 5,
# 480-1360-CTA combine plans, ragged); W1-W6 side by side with fi_decode_tc (model column).
cd "$(dirname "$0")/../.."
R=/tmp/s22a; Q=/tmp/s22a-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=target/bundle/workloads-sweep.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SH=S-b4-4096,S-b12-8192,S-fp8-b12-8192,S-b34-4096,S-fp8-b24-6000,S-rag-3long-20short,S-g16-b4-8k
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 25 $B check --workload-file $S --workloads $SH > $R/check.log 2>&1; echo "check rc $? t=$((SECONDS-start))" >> $R/steps.log
for tool in memcheck racecheck; do
  timeout 100 $CS --tool $tool --error-exitcode 3 --print-limit 20 $B check --workload-file $S --workloads $SH > $R/check-$tool.log 2>&1; echo "$tool check rc $? t=$((SECONDS-start))" >> $R/steps.log
done
OUT=$Q PHASES="fi_decode_tc:120" timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; echo "peers rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 80 $B bench --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report.txt 2>&1
cp -r $R "$OUT/"
