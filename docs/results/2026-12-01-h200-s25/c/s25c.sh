#!/usr/bin/env bash
# s25c: change 92, row-split consumers at head dim 256 (`_d256_w32` / `_w64`, one CTA per SM),
# and change 91b, the 16-bit _g64 tile's softmax and P·V in two 32-key halves (S still one
# m64n64 group). The GPU suite (row-split test with four d256 cases); memcheck and racecheck on
# the row-split and wgmma tests; A/B new vs base (bundle-h: HEAD before both) on the g64
# extras and on d256.toml, two interleaved rounds; d256.toml side by side with fi_decode_tc.
cd "$(dirname "$0")/../.."
R=/tmp/s25c; Q=/tmp/s25c-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
D=target/bundle/d256.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s25c-logs.tgz" .); }
timeout 100 target/bundle-h/ferroflash check --workload-file $D > $R/check-d256-base.log 2>&1 &
timeout 100 target/bundle/ferroflash check --workload-file $D > $R/check-d256-new.log 2>&1 &
wait; save "warm/check d256"
timeout 240 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
  timeout 60 $bin bench --workload-file $X --workloads X3,X11,X1 > $R/r$r-x-$v.log 2>&1; save "r$r x $v rc $?"
  timeout 60 $bin bench --workload-file $D > $R/r$r-d256-$v.log 2>&1; save "r$r d256 $v rc $?"
done
timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests row_split > $R/memcheck-rowsplit.log 2>&1; save "memcheck row_split rc $?"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
OUT=$Q PHASES="fi_decode_tc:100" FLASHINFER_DISABLE_JIT=1 timeout 110 bash .peers/run_device.sh --workload-file $D > $R/peers-d256.log 2>&1; save "peers d256 rc $?"
timeout 60 target/bundle/ferroflash bench --workload-file $D --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-d256.log 2>&1; save "bench d256 rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-d256.txt 2>&1; save "report rc $?"
cp $Q/env.json $Q/raw.jsonl $R/ 2>/dev/null; save "copied"
timeout 100 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests row_split > $R/racecheck-rowsplit.log 2>&1; save "racecheck row_split rc $?"
