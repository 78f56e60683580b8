#!/usr/bin/env bash
# s17b: the GPU suite, memcheck/racecheck on the row-split and wgmma cases, the soak (random
# layouts incl. HND), X3's timeline and ncu on X3's g64 kernel (main 13ee826 + w64 launder).
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 200 ./gpu-tests > "$OUT/suite.log" 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
mkdir -p "$OUT/tl-x3"
timeout 60 ./ferroflash bench --workload-file workloads-extra.toml --workloads X3,X10 --timeline "$OUT/tl-x3" > "$OUT/x3-tl.log" 2>&1
echo "x3 tl rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy"
timeout 90 ncu --clock-control none $S --kernel-name regex:ff_decode --launch-skip 20 --launch-count 1 \
  --print-details all ./ferroflash bench --workload-file workloads-extra.toml --workloads X3 > "$OUT/ncu-X3.txt" 2>&1
echo "ncu X3 rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  FF_LONG_KV=640 timeout 100 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests decode/row_split > "$OUT/$tool-rowsplit.log" 2>&1
  echo "$tool rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
timeout 60 ./gpu-tests soak > "$OUT/soak.log" 2>&1; echo "soak rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
