#!/usr/bin/env bash
# Session 11, call c: W1/W2/W5/W6/W7 with the load-balancing cluster policy and clusters of up
# to 8 against the old default (policy 0, at most 4); timelines with stamps in the epilogue.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s11c; mkdir -p $R
cd "$here"
bash run.sh tests prim/sreg > /dev/null 2>&1
E="--workload-file ../../benches/workloads-extra.toml --workloads W7"
for round in 1 2; do
  for cfg in "2 0" "0 4"; do
    set -- $cfg
    echo "== round $round policy $1 max $2"
    FERROFLASH_CLUSTER_POLICY=$1 FERROFLASH_CLUSTER_MAX=$2 timeout 40 ./ferroflash bench --workloads W1,W2,W5,W6 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-230
    FERROFLASH_CLUSTER_POLICY=$1 FERROFLASH_CLUSTER_MAX=$2 timeout 40 ./ferroflash bench $E 2>&1 | grep -v "^device\|^workload\|ceilings" | cut -c1-230
  done
done > "$R/ab.log" 2>&1
cat "$R/ab.log"
mkdir -p $R/on $R/off
timeout 40 ./ferroflash bench --workloads W1,W2,W5,W6 --timeline $R/on 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-on.txt"
timeout 40 ./ferroflash bench --workloads W2,W5 --cluster off --timeline $R/off 2>&1 | grep -v "^device" | cut -c1-230 > "$R/timeline-off.txt"
cat $R/timeline-on.txt $R/timeline-off.txt | grep -v ceilings
tar czf "$OUT/s11c.tgz" -C /tmp s11c
