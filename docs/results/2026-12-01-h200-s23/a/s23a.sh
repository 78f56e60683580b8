#!/usr/bin/env bash
# s23a: the per-score mask/softcap tests hoisted out of the softmax loops (change 84): the GPU
# suite on the new build; A/B new vs base (session 22's final build) on W1, W2, W5, W6 and the
# spec-decode extras, two interleaved rounds. (The suite log and steps.log did not come back:
# more than 8 files under $OUT; the run's output tail showed "34 passed, 0 failed, 2 skipped".)
cd "$(dirname "$0")/../.."
R=/tmp/s23a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-base/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
N=target/bundle/ferroflash; B=target/bundle-base/ferroflash
X=target/bundle/workloads-extra.toml
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
for r in 1 2; do
  for v in new base; do
    bin=$N; [ $v = base ] && bin=$B
    timeout 60 $bin bench --workloads W1,W2,W5,W6 > $R/r$r-w-$v.log 2>&1; echo "r$r w $v rc $? t=$((SECONDS-start))" >> $R/steps.log
    timeout 80 $bin bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/r$r-x-$v.log 2>&1; echo "r$r x $v rc $? t=$((SECONDS-start))" >> $R/steps.log
  done
done
cp -r $R "$OUT/"
