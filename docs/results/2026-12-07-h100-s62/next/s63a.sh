#!/usr/bin/env bash
# Ready for session 63's first call (written in session 62; its device time ran out before
# call c). Build: `cargo xtask bundle` on main, `rm -rf target/bundle/ptx`, this as
# target/bundle/call.sh, ../c/c62.toml and cb62.toml beside it; .peers = a copy of
# ../shared/peers (ignored); carry ["target/bundle", ".peers"]; `LIMIT=570 bash
# target/bundle/call.sh; cat /tmp/s63a/steps.log`. Expectations for c62: ../c/expect.md.
. "$(dirname "$0")/call-lib.sh" s63a
# 1. On an H200: W1-W6 beside fi_decode_tc (the standing of issues 3-5: W1 >= 85%, W5 >= 85% and
#    1.8x W2's bytes rate, W6 >= 93%; session 54: 83.5 / 81.5 / 92.2-92.6), two rounds; the
#    paged read probe of the same cuts (session 20's bound, not re-measured since). Elsewhere W once.
wset $R/w
timeout 40 $B bench --paged-probe > $R/probe-w.log 2>&1; save "probe W rc $?"
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
