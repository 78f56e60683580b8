#!/usr/bin/env bash
# Session 62 call b: a random draw at the padded head dims (gen_padded.py seed 62, 40 shapes:
# 16-bit multiples of 16, fp8 K/V at 80-112 / 144-240, beside 64/128/256; ragged batches, page
# sizes 1-128, ratios 1-16, 1-16 new tokens). `check` (CPU float64 reference, tolerance policy)
# first, then one bench round (times and % of the read ceiling; no peer runs these head dims).
# Build: `cargo xtask bundle`, `rm -rf target/bundle/ptx`, this as target/bundle/call.sh,
# padded62.toml beside it; carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s62b
timeout 200 $B check --workload-file target/bundle/padded62.toml > $R/check-padded62.log 2>&1; save "check padded62 rc $? ($(grep -c PASS $R/check-padded62.log) PASS, $(grep -c FAIL $R/check-padded62.log) FAIL)"
ben padded62 target/bundle/padded62.toml 200
