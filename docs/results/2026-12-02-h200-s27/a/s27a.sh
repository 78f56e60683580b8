#!/usr/bin/env bash
# s27a: change 93 as kept (session 26's call c ran it but its logs were lost with that machine).
# The GPU suite; memcheck over the whole suite; `ferroflash check` and bench on the small shapes
# and on the random sweep (session 26 call b holds the base build's numbers on the same files).
cd "$(dirname "$0")/../.."
R=/tmp/s27a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml; X=target/bundle/workloads-random.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s27a-logs.tgz" .); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt 2>&1
timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
timeout 60 target/bundle/ferroflash bench --workload-file $S --rot-gib 0.5 > $R/small-new.log 2>&1; save "small new rc $?"
timeout 140 target/bundle/ferroflash bench --workload-file $X --rot-gib 0.5 > $R/random-new.log 2>&1; save "random new rc $?"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FF_LONG_KV=640 timeout $((570-(SECONDS-start))) $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests > $R/memcheck.log 2>&1; save "memcheck rc $?"
