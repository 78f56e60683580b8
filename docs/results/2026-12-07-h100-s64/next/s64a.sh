#!/usr/bin/env bash
# Session 64 call a: session 62's next/s63a.sh (never run: no device in session 63) plus a
# timeline of W1, W5, W6 after the W set, one with per-tile stamps, and knobs on them. Build: `cargo xtask bundle` on main, `rm -rf target/bundle/ptx`, this as
# target/bundle/call.sh, docs/results/2026-12-07-h100-s62/c/c62.toml and its next/cb62.toml beside it; .peers = a copy of
# ../shared/peers (ignored); carry ["target/bundle", ".peers"]; `LIMIT=570 bash
# target/bundle/call.sh; cat /tmp/s64a/steps.log`. Expectations for c62: 2026-12-07-h100-s62/c/expect.md.
. "$(dirname "$0")/call-lib.sh" s64a
# 1. On an H200: W1-W6 beside fi_decode_tc (the standing of issues 3-5: W1 >= 85%, W5 >= 85% and
#    1.8x W2's bytes rate, W6 >= 93%; session 54: 83.5 / 81.5 / 92.2-92.6), two rounds; the
#    paged read probe of the same cuts (session 20's bound, not re-measured since). Elsewhere W once.
wset $R/w
timeout 40 $B bench --paged-probe > $R/probe-w.log 2>&1; save "probe W rc $?"
# 1b. Per-CTA timelines of the three short shapes that miss (start, end, combine hand-over).
timeout 40 $B bench --workloads W1,W5,W6 --timeline $R/tl > $R/tl.log 2>&1; save "timeline rc $?"
#     and with per-tile stamps (FF_TILE_STAMPS=1 build of the same commit, as ferroflash-stamps;
#     fp8 ~4% slower): steady rate, start and end lags, the epilogue step by step.
[ -x target/bundle/ferroflash-stamps ] && { timeout 40 target/bundle/ferroflash-stamps bench --workloads W1,W2,W5,W6 --timeline $R/tls > $R/tls.log 2>&1; save "stamps timeline rc $?"; }
# 1c. Knobs on the three short shapes on this GPU (each a bench of one to three W shapes):
#     forced split counts, combine parts, wgmma / row-split / TMA consumers, clusters off.
wk() { local tag=$1 w=$2; shift 2; timeout 25 $B bench --workloads $w --rot-gib 1 "$@" > $R/bench-k-$tag.log 2>&1; save "knob $tag rc $?"; }
wk base W1,W5,W6
for s in 16 24 40 48 64; do wk w1-s$s W1 --splits $s; done
for p in 2 4 16; do wk w1-cp$p W1 --combine-parts $p; done
for s in 2 3 6 8; do wk w56-s$s W5,W6 --splits $s; done
wk w56-cl-off W5,W6 --cluster off
wk w6-wgmma W6 --wgmma on
wk w6-tma W6 --tma on
wk w5-unpaired W5 --paired off
wk w1-prefetch-on W1,W5,W6 --prefetch on
wk base2 W1,W5,W6
# 2. Session 62's call c: the fp8 80-112 pair rule below 120 tiles per SM (T), 16 rows (U).
F=target/bundle/c62.toml
chk c62-on $F 40 --kv-pairs on
for round in 1 2; do
  ben c62-auto-$round $F 40
  ben c62-on-$round $F 40 --kv-pairs on
done
ben c62-off-1 $F 40 --kv-pairs off
# 3. Consumer-bound padded fp8 shapes (s62 call b): auto against forced splits and balance.
C=target/bundle/cb62.toml
ben cb62-auto $C 40
for s in 2 4 8; do ben cb62-s$s $C 40 --splits $s; done
ben cb62-bal $C 40 --balance on
# 4. The suite with what is left.
ST=$((LIMIT - (SECONDS - start) - 20)); [ $ST -gt 240 ] && ST=240
[ $ST -gt 30 ] && { timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"; }
