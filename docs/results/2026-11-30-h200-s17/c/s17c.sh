#!/usr/bin/env bash
# s17c: the wgmma consumer with P·V left in flight (tile t+1's S issued behind it) against
# main 13ee826: X3, X11 (g64), two rounds; the wgmma test and racecheck/memcheck on it.
set -u
cd "$(dirname "$0")"
for f in ferroflash.xz gpu-tests.xz ab/*.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
for r in 1 2; do
  for b in main2 g64ov; do
    echo "== round $r $b t=$((SECONDS-start))"
    timeout 100 ./ab/$b bench --workload-file workloads-extra.toml --workloads X3,X11 | grep -v '^device\|^workload'
  done
done > "$OUT/ab.log" 2>&1
timeout 100 ./gpu-tests decode/wgmma > "$OUT/wgmma-test.log" 2>&1; echo "wgmma test rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck memcheck synccheck; do
  FF_LONG_KV=640 timeout 100 $CS --tool $tool --error-exitcode 3 --print-limit 20 ./gpu-tests decode/wgmma > "$OUT/$tool-wgmma.log" 2>&1
  echo "$tool rc $? t=$((SECONDS-start))" >> "$OUT/steps.log"
done
