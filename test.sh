#!/usr/bin/env bash
# README command 2: every test. Unit and property tests of all crates, the GPU suite (each case
# PASS/FAIL, or SKIP with the reason where there is no GPU), and ptxas validation of every PTX
# module for its arch with the resource report (fails on spills or misplaced arch instructions),
# and the embedded sm_90a cubin of an FF_CUBIN=1 build.
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh
cargo test --workspace --quiet 2>&1
# The bundle's build embeds the sm_90a cubin (FF_CUBIN=1): check that build's image too.
FF_CUBIN=1 cargo test -p ferroflash --lib --quiet cubin 2>&1
cargo xtask report
