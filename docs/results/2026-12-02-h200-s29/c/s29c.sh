#!/usr/bin/env bash
# s29c: the final build (change 98). The whole GPU suite; the TMA test (head-dim-256 `_g64`
# cases at three stages) under compute-sanitizer memcheck; d256.toml with 64-row CTAs forced
# (`--m-tiles 4`: `_g64` also on the short batches the planner gives 16-row CTAs) against auto.
cd "$(dirname "$0")/../.."
R=/tmp/s29c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s29c-logs.tgz" .); }
timeout 60 $B bench --workload-file target/bundle/d256.toml --m-tiles 4 > $R/d256-m4.log 2>&1; save "d256 m4 rc $?"
timeout 60 $B bench --workload-file target/bundle/d256.toml > $R/d256-auto.log 2>&1; save "d256 auto rc $?"
timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
FF_LONG_KV=640 timeout 180 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests tma_tiles > $R/memcheck-tma.log 2>&1; save "memcheck tma rc $?"
