#!/usr/bin/env bash
# s25d: the final build. Change 92 with its rule (head dim 256 takes the row-split layouts only
# when the batch's keys fill the SMs: plan::keys_fill_sms); change 91b reverted. The GPU suite;
# d256.toml checked and timed, new vs base (bundle-h), one round each.
cd "$(dirname "$0")/../.."
R=/tmp/s25d; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
D=target/bundle/d256.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s25d-logs.tgz" .); }
timeout 100 target/bundle-h/ferroflash check --workload-file $D > $R/warm-base.log 2>&1 &
timeout 100 target/bundle/ferroflash check --workload-file $D > $R/check-d256.log 2>&1 &
wait; save "warm/check d256"
timeout 60 target/bundle/ferroflash bench --workload-file $D > $R/d256-new.log 2>&1; save "d256 new rc $?"
timeout 60 target/bundle-h/ferroflash bench --workload-file $D > $R/d256-base.log 2>&1; save "d256 base rc $?"
timeout 240 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
save "done"
