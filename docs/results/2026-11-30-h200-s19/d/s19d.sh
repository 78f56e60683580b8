#!/usr/bin/env bash
# s19d: TMA tiles on the spec-decode, d256 and fp8 extras (--tma on / off, one binary), then the
# suite with the report-format fix of the cluster test.
cd "$(dirname "$0")/../.."
R=/tmp/s19d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
for m in on off; do
timeout 100 target/bundle/ferroflash bench --tma $m --workload-file benches/workloads-extra.toml --workloads X3,X8,X9,X10,X11,X2,X7,W7 > $R/extra-$m.log 2>&1; echo "extra $m rc $? t=$((SECONDS-start))" >> $R/steps.log
done
timeout 60 target/bundle/ferroflash bench --tma on --workloads W2,W5 > $R/w-on.log 2>&1; echo "w on rc $? t=$((SECONDS-start))" >> $R/steps.log
left=$((590-SECONDS)); [ $left -gt 20 ] && { timeout $left target/bundle/gpu-tests > $R/suite.log 2>&1; echo "suite rc $? t=$((SECONDS-start))" >> $R/steps.log; }
cp -r $R "$OUT/"
