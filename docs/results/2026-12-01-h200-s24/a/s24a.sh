#!/usr/bin/env bash
# s24a: changes 87 (the _g64 16-bit consumer leaves tile t's P·V in flight across tile t+1's
# wait and S issue) and 88 (the narrow consumer's scale folded into the exp2 fma): memcheck and
# racecheck on the wgmma and narrow consumer tests (session 23's kernels were never
# memchecked); A/B new vs base (bundle-f = fd5ee71, PTX-identical to b45977c), two interleaved
# rounds, on W1, W2, W5, W6 and the spec-decode extras. Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s24a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-f/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s24a-logs.tgz" .); }
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-f/ferroflash
  timeout 45 $bin bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/r$r-x-$v.log 2>&1; save "r$r x $v rc $?"
  timeout 50 $bin bench --workloads W1,W2,W5,W6 > $R/r$r-w-$v.log 2>&1; save "r$r w $v rc $?"
done
timeout 100 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
timeout 40 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
timeout 80 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests narrow_rows > $R/memcheck-narrow.log 2>&1; save "memcheck narrow rc $?"
timeout 40 target/bundle/gpu-tests tma_tiles > $R/tma.log 2>&1; save "tma rc $?"
