#!/usr/bin/env bash
# Session 15, call c: epilogue stamps (branch experiment/tile-begin-stamps, FF_TILE_STAMPS=1):
# where the ~0.9 us (bf16) / ~1.9 us (fp8 narrow) in-CTA merge and the cluster merge go.
here="$(cd "$(dirname "$0")" && pwd)"
R=/tmp/s15c; mkdir -p $R/tl
cd "$here"
for f in ferroflash.xz gpu-tests.xz; do [ -e $f ] && xz -d -f $f; chmod +x ${f%.xz}; done
F="grep -v ^device\|^workload"
timeout 80 ./ferroflash bench --workloads W1,W2,W5 --timeline $R/tl 2>&1 | $F | cut -c1-120 | tee $R/stamps.log
timeout 60 ./gpu-tests timeline 2>&1 | tail -3 | tee -a $R/stamps.log
tar czf "$OUT/s15c.tgz" -C /tmp s15c
