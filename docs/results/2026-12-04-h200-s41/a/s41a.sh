#!/usr/bin/env bash
# Session 41 call a: bundle = branch experiment/combine-prefetch (121 on top of 120b), its
# `ferroflash` and `gpu-tests`; ferroflash-main.xz = main, ferroflash-120b.xz = 120b alone.
# (1) W1,W2,W5,W6 main / 120b / 121, three interleaved rounds; (2) the cluster, combine, split,
# graph and fp8-pairing tests on 121; (3) memcheck and racecheck of the combine and cluster
# tests on 121, as time allows.
cd "$(dirname "$0")/../.."
R=/tmp/s41a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s41a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
for r in 1 2 3; do
  for v in main 120b 121; do
    bin=$B-$v; [ $v = 121 ] && bin=$B
    timeout 60 $bin bench --workloads W1,W2,W5,W6 > $R/w-r$r-$v.log 2>&1; save "w r$r $v rc $?"
  done
done
T=target/bundle/gpu-tests
for f in cluster_merge combine_parts splits1 cuda_graph paired_fp8 balanced_plans; do
  rem=$((430 - (SECONDS - start)))
  [ $rem -gt 20 ] && { timeout $rem $T $f > $R/test-$f.log 2>&1; save "test $f rc $?"; }
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for f in combine_parts cluster_merge_against; do
  for tool in memcheck racecheck; do
    rem=$((585 - (SECONDS - start)))
    [ $rem -gt 20 ] && { timeout $rem $CS --tool $tool --error-exitcode 3 --print-limit 20 $T $f > $R/$tool-$f.log 2>&1; save "$tool $f rc $?"; }
  done
done
