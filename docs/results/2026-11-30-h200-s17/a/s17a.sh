#!/usr/bin/env bash
# s17a: main / launder (lane laundered in the 16-bit tile loop) / epi (launder + packed-row
# multiply-high + rcp.approx) / e1 (epi + the ring's last stage filled after tile 0's release).
set -u
cd "$(dirname "$0")"
for f in ab/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
for r in 1 2; do
  for b in main launder epi e1; do
    echo "== round $r $b t=$((SECONDS-start))"
    timeout 150 ./ab/$b bench | grep -v '^device'
  done
done > "$OUT/ab.log" 2>&1
for b in main launder epi; do
  echo "== X $b t=$((SECONDS-start))"
  timeout 100 ./ab/$b bench --workload-file workloads-extra.toml --workloads X3,X9,X10,X11 | grep -v '^device'
done > "$OUT/abx.log" 2>&1
echo "done t=$((SECONDS-start))" >> "$OUT/abx.log"
