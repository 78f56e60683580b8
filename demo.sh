#!/usr/bin/env bash
# README command 1: the decode benchmark on W1-W6. On a machine with an NVIDIA GPU (sm_80+) it
# times the kernels; without one it runs the float64 CPU reference on reduced workloads and says
# how to get GPU numbers. Extra arguments go to `ferroflash bench` (e.g. --workloads W2).
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh
cargo run --quiet --release -p ferroflash-bench --bin ferroflash -- bench "$@"
