#!/usr/bin/env bash
# s19g: TMA tiles only in the wgmma and fp8 row-split variants (the key-split ones back to
# cp.async and the row layout): the suite, W1-W6 and the spec-decode extras (defaults).
cd "$(dirname "$0")/../.."
R=/tmp/s19g; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
timeout 170 target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log
timeout 60 target/bundle/ferroflash bench --workloads W1,W2,W3,W4,W5,W6 > $R/bench.log 2>&1; echo "bench rc $? t=$((SECONDS-start))" >> $R/steps.log
left=$((255-SECONDS)); [ $left -gt 15 ] && { timeout $left target/bundle/ferroflash bench --workload-file benches/workloads-extra.toml --workloads X3,X9,X10,X11 > $R/extra.log 2>&1; echo "extra rc $? t=$((SECONDS-start))" >> $R/steps.log; }
cp -r $R "$OUT/"
