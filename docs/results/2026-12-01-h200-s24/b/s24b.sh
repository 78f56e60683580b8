#!/usr/bin/env bash
# s24b: call a lost most of its A/B to the driver's first-load JIT of the sm_90a module (~40 s
# per binary, killed by the per-step timeouts before the cache was written). This call warms
# the JIT cache of both builds first (in parallel), then A/B new (changes 87, 88) vs base
# (bundle-f), X extras in two interleaved rounds and W1/W2/W5/W6 in one, then the GPU suite on
# the new build. Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s24b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-f/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s24b-logs.tgz" .); }
timeout 150 target/bundle/ferroflash check --workloads W2 > $R/warm-new.log 2>&1 &
timeout 150 target/bundle-f/ferroflash check --workloads W2 > $R/warm-base.log 2>&1 &
wait; save "warm"
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-f/ferroflash
  timeout 60 $bin bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/r$r-x-$v.log 2>&1; save "r$r x $v rc $?"
done
for v in new base; do
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-f/ferroflash
  timeout 50 $bin bench --workloads W1,W2,W5,W6 > $R/r1-w-$v.log 2>&1; save "r1 w $v rc $?"
done
timeout 200 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
