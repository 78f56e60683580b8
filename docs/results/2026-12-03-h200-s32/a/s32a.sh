#!/usr/bin/env bash
# s32a: change 102 (session 31) with the K/V row-offset helper `kv_row_bytes` shared by the
# producer and the next-wave prefetch, plus the new test
# decode/next_wave_prefetch_multi_wave: the GPU suite, then memcheck and racecheck on the new
# test, memcheck on the TMA test, racecheck on the wgmma consumer test.
cd "$(dirname "$0")/../.."
R=/tmp/s32a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s32a-logs.tgz" .); }
timeout 220 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 70 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests next_wave > $R/memcheck-next-wave.log 2>&1; save "memcheck next_wave rc $?"
FF_LONG_KV=640 timeout 110 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests next_wave > $R/racecheck-next-wave.log 2>&1; save "racecheck next_wave rc $?"
FF_LONG_KV=640 timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma > $R/memcheck-tma.log 2>&1; save "memcheck tma rc $?"
FF_LONG_KV=640 timeout 80 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/racecheck-wgmma.log 2>&1; save "racecheck wgmma rc $?"
