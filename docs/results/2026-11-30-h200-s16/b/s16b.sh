#!/usr/bin/env bash
# s16b: ncu memory tables for bf16 vs e4m3 (NHD and HND) long runs; the GPU suite and the
# sanitizers on the HND build (main 90b88a2).
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section Occupancy"
for w in G128 F128; do
  for lay in nhd hnd; do
    timeout 90 ncu --clock-control none $S --kernel-name regex:ff_decode --launch-skip 20 --launch-count 1 \
      --print-details all ./ferroflash bench --workload-file gran.toml --workloads $w --kv-layout $lay > "$OUT/ncu-$w-$lay.txt" 2>&1
    echo "ncu $w $lay rc $?" >> "$OUT/steps.log"
  done
done
timeout 200 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $?" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  FF_LONG_KV=640 timeout 150 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests decode/hnd > "$OUT/$tool.log" 2>&1
  echo "$tool rc $?" >> "$OUT/steps.log"
done
