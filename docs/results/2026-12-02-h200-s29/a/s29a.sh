#!/usr/bin/env bash
# s29a: change 97 (the wgmma consumer at head dim 256 over 16-bit K/V, `_d256_g64`). The wgmma
# and TMA tests (now with head-dim-256 cases), A/B auto (g64) / --wgmma off (w64) on d256.toml
# in two interleaved rounds, fi_decode_tc on the same file, then the whole GPU suite.
cd "$(dirname "$0")/../.."
R=/tmp/s29a; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s29a-logs.tgz" .); }
timeout 90 target/bundle/gpu-tests wgmma_consumer > $R/test-wgmma.log 2>&1; save "wgmma test rc $?"
timeout 90 target/bundle/gpu-tests tma_tiles > $R/test-tma.log 2>&1; save "tma test rc $?"
for round in 1 2; do
  timeout 60 $B bench --workload-file target/bundle/d256.toml > $R/d256-r$round-g64.log 2>&1; save "d256 r$round g64 rc $?"
  timeout 60 $B bench --workload-file target/bundle/d256.toml --wgmma off > $R/d256-r$round-w64.log 2>&1; save "d256 r$round w64 rc $?"
done
OUT=$R/peers PHASES="fi_decode_tc:150" FLASHINFER_DISABLE_JIT=1 timeout 170 bash .peers/run_device.sh --workload-file target/bundle/d256.toml > $R/peers.log 2>&1; save "peers rc $?"
timeout 240 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
