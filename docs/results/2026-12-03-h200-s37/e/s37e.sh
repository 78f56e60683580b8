#!/usr/bin/env bash
# s37e: the stamp build (`FF_TILE_STAMPS=1 cargo xtask bundle`, session 36's kernels plus the
# per-tile and epilogue stamps): W2/W6/W5/W1 timelines, for `cargo xtask timeline` here.
cd "$(dirname "$0")/../.."
R=/tmp/s37e; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s37e-logs.tgz" .); }
timeout 60 target/bundle/ferroflash bench --workloads W2,W6,W5,W1 --timeline $R/tl > $R/tl.log 2>&1; save "tl rc $?"
