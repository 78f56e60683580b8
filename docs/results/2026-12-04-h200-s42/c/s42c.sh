#!/usr/bin/env bash
# Session 42 call c: head dim 256 key-split (`_d256_m16`, 16-bit K/V) on d256-42.toml.
# ferroflash-main = main (be261a5); ferroflash-A = two load warps for that variant;
# ferroflash (B, the bundle) = A + three 64 KiB stages (sm_90 only). Two interleaved rounds;
# then main with --balance on / --splits 3 (the split model's lone-CTA speedup at one CTA per
# SM); then `check` of the file with B and the last-wave-split and dims sweep GPU tests with B.
cd "$(dirname "$0")/../.."
R=/tmp/s42c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s42c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
F=target/bundle/d256-42.toml
for r in 1 2; do
  for v in main A B; do
    bin=$B-$v; [ $v = B ] && bin=$B
    timeout 70 $bin bench --workload-file $F --rot-gib 0.5 > $R/d-r$r-$v.log 2>&1; save "r$r $v rc $?"
  done
done
timeout 40 $B-main bench --workload-file $F --rot-gib 0.5 --workloads R02,R37,R31,S26,D3 --balance on > $R/main-bal.log 2>&1; save "main bal rc $?"
timeout 40 $B-main bench --workload-file $F --rot-gib 0.5 --workloads R02,R37,R31,S26,D3 --splits 3 > $R/main-s3.log 2>&1; save "main s3 rc $?"
timeout 40 $B bench --workload-file $F --rot-gib 0.5 --workloads R02,R37,R31,S26,D3 --balance on > $R/B-bal.log 2>&1; save "B bal rc $?"
timeout 90 $B check --workload-file $F > $R/check-B.log 2>&1; save "check rc $?"
for t in last_wave_split sweep_dims; do
  rem=$((585 - (SECONDS - start)))
  [ $rem -gt 30 ] && { timeout $rem target/bundle/gpu-tests $t > $R/test-$t.log 2>&1; save "test $t rc $?"; }
done
