#!/usr/bin/env bash
# s16a: HND pages (branch experiment/kv-layout) against main, and the HND tests.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/main.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
W=W1,W2,W5,W6
for r in 1 2; do
  echo "== round $r main (nhd)"; timeout 120 ./ab/main bench --workloads $W
  echo "== round $r branch nhd"; timeout 120 ./ferroflash bench --workloads $W
  echo "== round $r branch hnd"; timeout 120 ./ferroflash bench --workloads $W --kv-layout hnd --jsonl "$OUT/hnd.jsonl"
done > "$OUT/ab.log" 2>&1
timeout 240 ./gpu-tests decode/hnd_pages > "$OUT/tests.log" 2>&1
timeout 120 ./gpu-tests decode/cuda_graph >> "$OUT/tests.log" 2>&1
timeout 150 ./gpu-tests decode/sweep_dims >> "$OUT/tests.log" 2>&1
echo done >> "$OUT/tests.log"
