#!/usr/bin/env bash
# s24e: change 90, the fp8 _g64 consumer widens tile t+1 (into a second 16-bit V tile) while
# tile t's P·V is in flight (2-stage fp8 ring, 48 KiB of 16-bit tiles). A/B new vs base
# (bundle-f, session 23's kernels) on X10, X12 (fp8 _g64) and X3 (16-bit _g64, control), two
# interleaved rounds after warming both builds' JIT; memcheck and racecheck on the wgmma test;
# the GPU suite. Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s24e; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-f/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s24e-logs.tgz" .); }
timeout 100 target/bundle-f/ferroflash check --workloads W2 > $R/warm-base.log 2>&1 &
timeout 100 target/bundle/ferroflash check --workload-file $X --workloads X10 > $R/warm-new.log 2>&1 &
wait; save "warm"
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-f/ferroflash
  timeout 50 $bin bench --workload-file $X --workloads X10,X12,X3 > $R/r$r-$v.log 2>&1; save "r$r $v rc $?"
done
timeout 40 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
timeout 40 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
