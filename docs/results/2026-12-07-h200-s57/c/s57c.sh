#!/usr/bin/env bash
# Session 57 call c: branch exp/135-padded-head-dims (change 135, head dims other than 64 /
# 128 / 256 in the padded `_d{64,128,256}p` variants).
# 1. the new padded case; `check` and bench on padded.toml (P7 is a d128 reference row).
# 2. W1-W6 (our bench; the unpadded kernels' PTX is unchanged but for register numbering).
# 3. memcheck and racecheck on the padded case; the whole suite; fi_decode_tc on padded.toml.
# Copy this script and padded.toml to target/bundle/ (the script as call.sh), carry
# ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s57c
F=target/bundle/padded.toml
timeout 90 $T padded > $R/t-padded.log 2>&1; save "padded rc $? ($(grep -E 'passed,' $R/t-padded.log))"
timeout 60 $B check --workload-file $F > $R/check-padded.log 2>&1; save "check padded rc $? ($(grep -c '^PASS' $R/check-padded.log) PASS, $(grep -c '^FAIL' $R/check-padded.log) FAIL)"
timeout 30 $B bench --workload-file $F --rot-gib 0.5 > $R/bench-padded.log 2>&1; save "bench padded rc $?"
timeout 20 $B bench > $R/bench-w.log 2>&1; save "bench w rc $?"
sanitize memcheck decode/padded
sanitize racecheck decode/padded
[ $((SECONDS-start)) -lt $((LIMIT-170)) ] && { timeout 170 $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"; }
[ $((SECONDS-start)) -lt $((LIMIT-50)) ] && { Q=$R/q; mkdir -p $Q; OUT=$Q PHASES="fi_decode_tc:40" FLASHINFER_DISABLE_JIT=1 timeout 45 bash .peers/run_device.sh --workload-file $F > $R/peers-padded.log 2>&1; save "peers padded rc $?"; }
