#!/usr/bin/env bash
# s23b: change 85 (the softmax's scale folded into the exp2 fma, one straight-line softmax per
# mask/softcap case) on top of change 84 (hoisted mask/softcap tests): the GPU suite and
# racecheck on the wgmma consumer test on the new build; A/B/C new vs hoist-only (84) vs base
# (session 22's final build) on W1, W2, W5, W6 and the spec-decode extras.
cd "$(dirname "$0")/../.."
R=/tmp/s23b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-base/ferroflash.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 70 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck.log 2>&1; echo "racecheck rc $? t=$((SECONDS-start))" >> $R/steps.log
for rv in 1:new 1:h 1:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-base/ferroflash; [ $v = h ] && bin=target/bundle-h/ferroflash
  timeout 50 $bin bench --workloads W1,W2,W5,W6 > $R/r$r-w-$v.log 2>&1; echo "r$r w $v rc $? t=$((SECONDS-start))" >> $R/steps.log
  timeout 60 $bin bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/r$r-x-$v.log 2>&1; echo "r$r x $v rc $? t=$((SECONDS-start))" >> $R/steps.log
done
cd $R && tar czf /tmp/s23b-logs.tgz . && cp /tmp/s23b-logs.tgz "$OUT/" && cp steps.log "$OUT/"
