#!/usr/bin/env bash
# s37a: (1) the whole GPU suite with the DecodeCase defaults of session 36 (early_kv on in
# almost every case; never run on the GPU), memcheck and racecheck on fp8_quick and early_kv;
# (2) W1-W6; the paged read probe (kv-head and token cuts) on W1/W2/W5/W6: what 128-byte fp8
# rows cost; (3) P5 (W5's bytes as 256-byte rows: d256, four kv heads) under several plans;
# (4) W5/W6 timelines.
cd "$(dirname "$0")/../.."
R=/tmp/s37a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37a-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 40 $B bench --workloads W1,W2,W5,W6 > $R/w.log 2>&1; save "w rc $?"
for c in kv-head token; do
  timeout 40 $B bench --workloads W1,W2,W5,W6 --paged-probe $c > $R/probe-$c.log 2>&1; save "probe $c rc $?"
done
P=target/bundle/p5.toml
timeout 20 $B bench --workload-file $P > $R/p5-auto.log 2>&1; save "p5 auto rc $?"
for s in 4 6 7 8; do
  timeout 20 $B bench --workload-file $P --splits $s > $R/p5-s$s.log 2>&1; save "p5 s$s rc $?"
done
timeout 20 $B bench --workload-file $P --paged-probe kv-head > $R/p5-probe.log 2>&1; save "p5 probe rc $?"
timeout 30 $B bench --workloads W5,W6 --timeline $R/tl > $R/tl.log 2>&1; save "tl rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for t in early_kv fp8_quick; do
  FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/memcheck-$t.log 2>&1; save "memcheck $t rc $?"
  FF_LONG_KV=640 timeout 60 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
rem=$((575 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
