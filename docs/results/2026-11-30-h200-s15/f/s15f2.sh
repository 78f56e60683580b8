#!/usr/bin/env bash
# Session 15, call f2: call f's tests got no output within 30 s (the driver JITs the whole
# ~12 MB sm_90a PTX on a fresh machine before the first line). Longer limit, one A/B round,
# logs straight into $OUT.
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
s=$(date +%s); timeout 75 ./gpu-tests decode/cluster_merge > $OUT/tests.log 2>&1; echo "rc $? in $(( $(date +%s) - s )) s" | tee -a $OUT/tests.log; grep -E "PASS|FAIL" $OUT/tests.log
grep -q "FAIL\|rc [1-9]" $OUT/tests.log && exit 1
for b in ./ab/ferroflash-main ./ferroflash; do
  echo "== $b"; timeout 40 $b bench --workloads W2,W5,W6 2>&1 | $F | cut -c1-100
done 2>&1 | tee $OUT/ab.log
