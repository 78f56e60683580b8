#!/usr/bin/env bash
# s23c: change 86 (the wgmma consumer skips the proxy fence for TMA tiles) on top of 85: the
# GPU suite; racecheck on the wgmma consumer test; A/B new vs 85 (fd5ee71) on the spec-decode
# extras, one round; W1-W6 side by side with fi_decode_tc (peers' read ceiling). The logs are
# re-packed into $OUT after every step (a first attempt lost its machine mid-call).
cd "$(dirname "$0")/../.."
R=/tmp/s23c; Q=/tmp/s23c-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-f/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s23c-logs.tgz" .); }
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
timeout 40 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/san-racecheck.log 2>&1; save "racecheck rc $?"
for v in new f; do
  bin=$B; [ $v = f ] && bin=target/bundle-f/ferroflash
  timeout 45 $bin bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/r1-x-$v.log 2>&1; save "r1 x $v rc $?"
done
OUT=$Q PHASES="fi_decode_tc:120" timeout 80 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; save "peers rc $?"
timeout 65 $B bench --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench.log 2>&1; save "bench rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report.txt 2>&1; save "report rc $?"
