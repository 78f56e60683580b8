#!/usr/bin/env bash
# README command 2: every test. Unit and property tests of all crates, the GPU suite (each case
# PASS/FAIL, or SKIP with the reason where there is no GPU), and ptxas validation of every PTX
# module for its arch with the resource report (fails on spills or misplaced arch instructions).
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh
cargo test --workspace --quiet 2>&1
cargo xtask report
