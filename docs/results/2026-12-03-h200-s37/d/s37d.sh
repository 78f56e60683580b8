#!/usr/bin/env bash
# s37d: change 111, the cluster merge reads its own CTA's partial by plain shared loads (only
# the other ranks' cross the cluster network), against main (`ferroflash-main`, session 36's
# code); diagnostic 112 (`FF_EXP_RELAXED=1`, not for merging): the first cluster barrier with
# relaxed arrivals, i.e. without its MEMBAR.ALL.GPU. Two interleaved rounds on W1/W2/W5/W6,
# X5/X6 once; the cluster, paired, fp8 and early-K/V tests on the new build, memcheck and
# racecheck on the cluster test.
cd "$(dirname "$0")/../.."
R=/tmp/s37d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37d-logs.tgz" .); }
for round in 1 2; do
  timeout 40 $M bench --workloads W1,W2,W5,W6 > $R/w-main-r$round.log 2>&1; save "w main r$round rc $?"
  timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w-new-r$round.log 2>&1; save "w new r$round rc $?"
  FF_EXP_RELAXED=1 timeout 40 $B bench --workloads W2,W5,W6 > $R/w-relaxed-r$round.log 2>&1; save "w relaxed r$round rc $?"
done
timeout 30 $M bench --workload-file target/bundle/workloads-extra.toml --workloads X5,X6 > $R/x-main.log 2>&1; save "x main rc $?"
timeout 30 $B bench --workload-file target/bundle/workloads-extra.toml --workloads X5,X6 > $R/x-new.log 2>&1; save "x new rc $?"
for t in cluster_merge paired fp8_quick early_kv; do
  timeout 60 target/bundle/gpu-tests $t > $R/t-$t.log 2>&1; save "test $t rc $?"
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests cluster_merge > $R/memcheck-cluster.log 2>&1; save "memcheck cluster rc $?"
FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests cluster_merge > $R/racecheck-cluster.log 2>&1; save "racecheck cluster rc $?"
