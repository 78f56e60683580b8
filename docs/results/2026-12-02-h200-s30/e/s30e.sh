#!/usr/bin/env bash
# s30e: change 100 plus experiment 101 (two load warps for the head-dim-256 16-bit row-split
# variants `_d256_w32`/`_w64` too). The row-split test (d256 `_w32`, `_w64` cases), d256.toml in
# two rounds (R39 and the G9 rows run `_d256_w32`; R02/R20 `_g64`, change 100 as in call d),
# fi_decode_tc on the D-file's bf16 rows, memcheck on the row-split test.
cd "$(dirname "$0")/../.."
R=/tmp/s30e; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s30e-logs.tgz" .); }
timeout 60 target/bundle/gpu-tests row_split > $R/test-row-split.log 2>&1; save "row split test rc $?"
timeout 70 $B bench --workload-file target/bundle/d256.toml > $R/d256-r1.log 2>&1; save "d256 r1 rc $?"
timeout 70 $B bench --workload-file target/bundle/d256.toml --workloads R02,R39,G9-d256-g2-q16-b16-4k,G9-d256-g8-q4-b8-8k > $R/d256-r2.log 2>&1; save "d256 r2 rc $?"
OUT=$R/peers PHASES="fi_decode_tc:45" FLASHINFER_DISABLE_JIT=1 timeout 55 bash .peers/run_device.sh --workload-file target/bundle/d256-rand-peers.toml > $R/peers.log 2>&1; save "peers rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests row_split > $R/memcheck-row-split.log 2>&1; save "memcheck row split rc $?"
