#!/usr/bin/env bash
# s17f: the final kernels (combine with group_magic, 8e339a3) under memcheck, racecheck and
# synccheck on the split/combine/graph tests.
set -u
cd "$(dirname "$0")"
for f in gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$SECONDS
for t in decode/combine_parts decode/splits1 decode/cuda_graph; do
  for tool in memcheck racecheck synccheck; do
    FF_LONG_KV=640 timeout 150 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests $t > /tmp/l 2>&1
    echo "$t $tool rc $? t=$((SECONDS-start)) $(grep -E 'SUMMARY|passed,' /tmp/l | tr '\n' ' ')" >> "$OUT/sanitize.log"
  done
done
