#!/usr/bin/env bash
# s20g: the final build: the new probe test, memcheck on it, the whole GPU suite, and the paged
# read probe on W1/W2/W5/W6 once more (its kernel's write condition changed).
cd "$(dirname "$0")/../.."
R=/tmp/s20g; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 60 target/bundle/gpu-tests bench/ > $R/checks.log 2>&1; echo "probe test rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 120 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests bench/ >> $R/checks.log 2>&1; echo "memcheck rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 50 target/bundle/ferroflash bench --workloads W1,W2,W5,W6 --paged-probe > $R/paged-probe.log 2>&1; echo "paged probe rc $? t=$((SECONDS-start))" >> $R/steps.log
cp -r $R "$OUT/"
