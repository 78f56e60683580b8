#!/usr/bin/env bash
# Session 15, call f: branch experiment/epilogue-latency (mul.hi row splits, rcp.approx, plain
# FMAs in the cluster merge): the cluster and non-finite cases, then an A/B against main.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s15f; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
tar_out() { tar czf "$OUT/s15f.tgz" -C /tmp s15f; }
for t in decode/cluster_merge decode/nan_inf; do
  timeout 30 ./gpu-tests $t >> $R/tests.log 2>&1; echo "$t rc $?" | tee -a $R/tests.log
done
grep -E "PASS|FAIL" $R/tests.log
grep -q "FAIL\|rc [1-9]" $R/tests.log && { tar_out; exit 1; }
for round in 1 2; do
  for b in ./ab/ferroflash-main ./ferroflash; do
    echo "== round $round $b"; timeout 45 $b bench --workloads W1,W2,W5,W6 2>&1 | $F | cut -c1-100
  done
done 2>&1 | tee $R/ab.log
tar_out
