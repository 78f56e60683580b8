#!/usr/bin/env bash
# Session 15, call d: branch experiment/last-cta-merges (the last CTA of a cluster merges the
# block; no cluster barrier between the in-CTA merge and the remote reads). GPU suite, the
# sanitizers on the cluster cases, and an A/B against main (two rounds).
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s15d; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
timeout 200 ./gpu-tests > $R/tests.log 2>&1; echo "suite rc $?" | tee -a $R/tests.log; grep -E "FAIL|passed" $R/tests.log | tail -5
for tool in racecheck memcheck synccheck; do
  FF_LONG_KV=640 timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 ./gpu-tests decode/cluster_merge > $R/san-$tool.log 2>&1; echo "$tool rc $?" | tee -a $R/san.log; tail -2 $R/san-$tool.log
done
for round in 1 2; do
  for b in ./ab/ferroflash-main ./ferroflash; do
    echo "== round $round $b"; timeout 90 $b bench --workloads W1,W2,W5,W6 2>&1 | $F | cut -c1-130
    timeout 60 $b bench --workload-file workloads-extra.toml --workloads X5,X6 2>&1 | $F | cut -c1-130
  done
done 2>&1 | tee $R/ab.log
tar czf "$OUT/s15d.tgz" -C /tmp s15d
