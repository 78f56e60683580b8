#!/usr/bin/env bash
# s31b: change 102 (next-wave prefetch: each CTA's last load warp brings the page-table entries
# and first K/V tile of work item blockIdx + wave into L2). A/B --prefetch off/on, two rounds,
# on multi-wave grids (d256 one CTA per SM: R02, R20, D03, D05, D06, D09; two per SM: W3, W4,
# sweep31's R22) and W2 (one wave: nothing to prefetch). ferroflash check on the d256 file and
# W1-W6. Then the kernel choice on sweep31's slow rows (R19 fp8 g64 at 40 rows, R05 d256 at
# 256 rows, R33) with bf16 twins for fi_decode_tc.
cd "$(dirname "$0")/../.."
R=/tmp/s31b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; DF=target/bundle/workloads-d256.toml; PF=target/bundle/pf.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s31b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
for round in 1 2; do
  for pf in off on; do
    timeout 60 $B bench --workload-file $DF --workloads R02,R20,D03,D05,D06,D09 --rot-gib 0.5 --prefetch $pf > $R/d256-$pf-r$round.log 2>&1; save "d256 $pf r$round rc $?"
    timeout 60 $B bench --workloads W2,W3,W4 --rot-gib 0.5 --prefetch $pf > $R/w-$pf-r$round.log 2>&1; save "w $pf r$round rc $?"
    timeout 30 $B bench --workload-file $PF --workloads R22 --rot-gib 0.5 --prefetch $pf > $R/r22-$pf-r$round.log 2>&1; save "r22 $pf r$round rc $?"
  done
done
timeout 60 $B check --workload-file $DF > $R/check-d256.log 2>&1; save "check d256 rc $?"
timeout 40 $B check > $R/check-w.log 2>&1; save "check w rc $?"
for mt in auto 1; do
  timeout 50 $B bench --workload-file $PF --workloads R19,R19b,R19c,R05,R05b,R33 --rot-gib 0.5 --m-tiles $mt > $R/choice-mt$mt.log 2>&1; save "choice mt$mt rc $?"
done
timeout 30 $B bench --workload-file $PF --workloads R19,R19b,R19c,R33 --rot-gib 0.5 --m-tiles 2 > $R/choice-mt2.log 2>&1; save "choice mt2 rc $?"
timeout 30 $B bench --workload-file $PF --workloads R19,R19b,R19c,R33 --rot-gib 0.5 --wgmma off > $R/choice-nowg.log 2>&1; save "choice nowg rc $?"
Q=$R/peers; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 70 bash .peers/run_device.sh --workload-file target/bundle/pf-peers.toml > $R/peers.log 2>&1; save "peers rc $?"
