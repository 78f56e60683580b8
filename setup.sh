#!/usr/bin/env bash
# One-time set-up of a fresh machine (idempotent): the pinned Rust toolchain from
# rust-toolchain.toml, and ptxas 13.0 (pip nvidia-cuda-nvcc) under .tools/ for PTX validation.
set -euo pipefail
cd "$(dirname "$0")"
if ! rustup run "$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)" rustc -V >/dev/null 2>&1; then
  echo "setup: installing the pinned toolchain (rust-toolchain.toml)"
  rustup toolchain install
fi
PTXAS=.tools/py/nvidia/cu13/bin/ptxas
if [ ! -x "$PTXAS" ]; then
  echo "setup: installing ptxas 13.0.88 into .tools/ (pip nvidia-cuda-nvcc)"
  python3 -m pip install -q --no-cache-dir --disable-pip-version-check --target .tools/py nvidia-cuda-nvcc==13.0.88
fi
"$PTXAS" --version | tail -1
