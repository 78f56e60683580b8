#!/usr/bin/env bash
# Ready for session 39 (branch experiment/kv-evict-first, change 116): build main's bundle
# first and keep its ferroflash as target/bundle/ferroflash-main.xz, then the branch's bundle
# (`cargo xtask bundle`, `rm -rf target/bundle/ptx`), copy this script in, run with carry
# ["target/bundle"]. ~560 s. (1) main / branch on W1-W6; (2) main / branch on the extra
# shapes (X3, X10 and the row-split plans: several CTAs read the same K/V, where an
# evict-first policy could cost L2 reuse); (3) the whole suite on the branch.
cd "$(dirname "$0")/../.."
R=/tmp/s39a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main; X=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s39a-logs.tgz" .); }
for b in main new; do
  E=$B; [ $b = main ] && E=$M
  timeout 50 $E bench --workloads W1,W2,W3,W4,W5,W6 > $R/w-$b.log 2>&1; save "w $b rc $?"
done
for b in main new; do
  E=$B; [ $b = main ] && E=$M
  timeout 120 $E bench --workload-file $X > $R/x-$b.log 2>&1; save "x $b rc $?"
done
rem=$((590 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
