#!/usr/bin/env bash
# Session 15, call e: branch experiment/last-cta-merges after call d's hang (all cluster-barrier
# arrivals uniform). Cluster cases first with a short limit; only if they pass, the A/B
# against main and racecheck/synccheck on the cluster cases.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s15e; mkdir -p $R
cd "$here"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
tar_out() { tar czf "$OUT/s15e.tgz" -C /tmp s15e; }
timeout 40 ./gpu-tests decode/cluster_merge > $R/cluster-tests.log 2>&1; rc=$?; echo "cluster tests rc $rc"; tail -4 $R/cluster-tests.log
if [ $rc -ne 0 ]; then tar_out; exit 1; fi
for round in 1 2; do
  for b in ./ab/ferroflash-main ./ferroflash; do
    echo "== round $round $b"; timeout 60 $b bench --workloads W1,W2,W5,W6 2>&1 | $F | cut -c1-130
  done
done 2>&1 | tee $R/ab.log
FF_LONG_KV=640 timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 ./gpu-tests decode/cluster_merge > $R/san-racecheck.log 2>&1; echo "racecheck rc $?"; tail -2 $R/san-racecheck.log
tar_out
