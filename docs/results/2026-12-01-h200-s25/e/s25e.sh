#!/usr/bin/env bash
# s25e: the sm_80 module's head-dim-256 row-split kernels on the H200 (the sm80 test's new
# cases; on sm_80 the `_d256_w64` over e4m3 keep O in a local array), then memcheck on it.
cd "$(dirname "$0")/../.."
R=/tmp/s25e; mkdir -p $R
for f in target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s25e-logs.tgz" .); }
timeout 100 target/bundle/gpu-tests sm80_module > $R/sm80.log 2>&1; save "sm80 rc $?"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests sm80_module > $R/memcheck-sm80.log 2>&1; save "memcheck sm80 rc $?"
save "done"
