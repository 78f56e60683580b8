#!/usr/bin/env bash
# Session 55 call d (main with the row-block rule: no automatic balanced plan where a (request,
# kv head) has several row blocks): spec55.toml auto (the new rule) against --balance on (the
# balanced plan the split model took before for such batches), fi_decode_tc on the same file,
# then the whole suite and W1-W6 (plans unchanged there). Copy this script and
# ../c/spec55.toml to target/bundle/ (the script as call.sh), carry ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s55d
F=target/bundle/spec55.toml; Q=$R/q; mkdir -p $Q
for a in auto on auto on; do
  timeout 30 $B bench --workload-file $F --rot-gib 0.5 --balance $a > $R/bench-$a-$SECONDS.log 2>&1; save "bench balance $a rc $?"
done
OUT=$Q PHASES="fi_decode_tc:60" FLASHINFER_DISABLE_JIT=1 timeout 80 bash .peers/run_device.sh --workload-file $F > $R/peers-q.log 2>&1; save "peers q rc $?"
ST=$((LIMIT - (SECONDS-start) - 20)); [ $ST -gt 30 ] && { timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log)) in ${ST}s"; }
[ $((SECONDS-start)) -lt $((LIMIT-15)) ] && { timeout 12 $B bench > $R/bench-w.log 2>&1; save "bench w rc $?"; }
