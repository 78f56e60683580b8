#!/usr/bin/env bash
# Ready for session 65's first call (written in session 64, which got only an H100). Build:
# `cargo xtask bundle` on main (copy target/bundle/ferroflash.xz aside), then
# `FF_TILE_STAMPS=1 cargo xtask bundle` and keep its ferroflash.xz as
# target/bundle/ferroflash-stamps.xz beside main's; `rm -rf target/bundle/ptx` (binaries of
# 5.2-5.5 MB each since session 64's xz settings: the tree with .peers ~64 MB); this file as
# target/bundle/call.sh; .peers = a copy of ../shared/peers (ignored); carry
# ["target/bundle", ".peers"]; `LIMIT=300 bash target/bundle/call.sh; cat /tmp/s65a/steps.log`.
# About 150 s on an H200 (peers 100 s), so it fits a budget cut by failed starts.
. "$(dirname "$0")/call-lib.sh" s65a
# 1. On an H200: W1-W6 beside fi_decode_tc, two rounds (issues 3-5: W1 >= 85%, W5 >= 85% and
#    W2 / W5 >= 1.8x, W6 >= 93%; session 54: 83.5 / 81.5 / 92.2-92.6, 1.74-1.75x). Elsewhere
#    W once (session 64's H100: 89.9 / 87.7 / 95.3, 1.82x).
wset $R/w
# 2. The paged read probe of the same cuts (session 20's H200 bound: W1 87-89%, W5 89-91%,
#    W6 93-96%; session 64's H100: 91.6 / 90.1 / 96.5).
timeout 40 $B bench --paged-probe > $R/probe-w.log 2>&1; save "probe W rc $?"
# 3. Timelines, main and the stamps build (session 64's H100: W5's in-CTA merge 1.9 us after
#    the loop end against 1.1 on W1 / W2; steady W5 2.99, W2 3.16 TB/s).
timeout 40 $B bench --workloads W1,W5,W6 --timeline $R/tl > $R/tl.log 2>&1; save "timeline rc $?"
[ -x target/bundle/ferroflash-stamps ] && { timeout 60 target/bundle/ferroflash-stamps bench --workloads W1,W2,W5,W6 --timeline $R/tls > $R/tls.log 2>&1; save "stamps timeline rc $?"; }
# 4. A third round of W1, W5, W6 alone (same process order as session 64's knob base runs).
timeout 25 $B bench --workloads W1,W5,W6 --rot-gib 1 > $R/bench-w156.log 2>&1; save "bench W1,W5,W6 rc $?"
