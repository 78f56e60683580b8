#!/usr/bin/env bash
# s25b: change 91, the 16-bit _g64 consumer in two 32-key halves per tile (S of both halves
# issued at once; half a's softmax overlaps half b's S, half b's softmax overlaps half a's P·V).
# The g64 GPU tests (wgmma, TMA, sweep), memcheck and racecheck on the wgmma test; A/B new vs
# base (bundle-h: HEAD before the change) on the spec-decode extras, two interleaved rounds;
# then the 16 sweep25 shapes fi_decode_tc has modules for, side by side (new build).
cd "$(dirname "$0")/../.."
R=/tmp/s25b; Q=/tmp/s25b-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s25b-logs.tgz" .); }
timeout 100 target/bundle-h/ferroflash check --workload-file $X --workloads X3 > $R/warm-base.log 2>&1 &
timeout 100 target/bundle/ferroflash check --workload-file $X --workloads X3,X11 > $R/warm-new.log 2>&1 &
wait; save "warm"
for t in wgmma_consumer tma_tiles sweep_dims; do
  timeout 90 target/bundle/gpu-tests $t > $R/test-$t.log 2>&1; save "test $t rc $?"
done
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
  timeout 60 $bin bench --workload-file $X --workloads X3,X11,X1,X8,X10,X12 > $R/r$r-$v.log 2>&1; save "r$r $v rc $?"
done
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
OUT=$Q PHASES="fi_decode_tc:150" FLASHINFER_DISABLE_JIT=1 timeout 160 bash .peers/run_device.sh --workload-file target/bundle/sweep25-peers.toml > $R/peers-sweep.log 2>&1; save "peers sweep rc $?"
timeout 150 target/bundle/ferroflash bench --workload-file target/bundle/sweep25-peers.toml --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-sweep.log 2>&1; save "bench sweep rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report-sweep.txt 2>&1; save "report rc $?"
cp $Q/env.json $Q/raw.jsonl $R/ 2>/dev/null; save "done"
