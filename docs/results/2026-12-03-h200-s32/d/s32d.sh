#!/usr/bin/env bash
# s32d: change 103 with its GPU test decode/last_wave_split_against_reference: that test, the
# suite's cases call c's 220 s limit cut off (its host CPU ran ~1.5x slower than call a's), and
# memcheck and racecheck on the new test.
cd "$(dirname "$0")/../.."
R=/tmp/s32d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s32d-logs.tgz" .); }
for t in last_wave tma_tiles hnd_pages empty_requests bad_tensors cuda_graph timeline_records paged_probe; do
  timeout 90 target/bundle/gpu-tests $t > $R/test-$t.log 2>&1; save "test $t rc $?"
done
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests last_wave > $R/memcheck-last-wave.log 2>&1; save "memcheck last_wave rc $?"
FF_LONG_KV=640 timeout 100 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests last_wave > $R/racecheck-last-wave.log 2>&1; save "racecheck last_wave rc $?"
