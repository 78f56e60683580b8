#!/usr/bin/env bash
# s19c: K/V tiles by TMA tensor maps (branch experiment/tma-maps): the new test, the suite,
# memcheck on the TMA test, then W1-W6 with --tma on / off in one binary, two rounds.
cd "$(dirname "$0")/../.."
R=/tmp/s19c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 60 target/bundle/gpu-tests decode/tma > $R/tma-test.log 2>&1; echo "tma test rc $? t=$((SECONDS-start))" >> $R/steps.log
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests decode/tma > $R/memcheck-tma.log 2>&1; echo "memcheck rc $? t=$((SECONDS-start))" >> $R/steps.log
for r in 1 2; do
for m in on off; do
timeout 70 target/bundle/ferroflash bench --tma $m --workloads W1,W2,W3,W4,W5,W6 > $R/bench-$m-$r.log 2>&1; echo "bench $m $r rc $? t=$((SECONDS-start))" >> $R/steps.log
done; done
left=$((590-SECONDS)); [ $left -gt 20 ] && { timeout $left target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log; }
cp -r $R "$OUT/"
