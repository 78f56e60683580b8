#!/usr/bin/env bash
# Ready for session 62's first call (written in session 61). Main after change 141. Build:
# `cargo xtask bundle` on main, `rm -rf target/bundle/ptx`, copy this as target/bundle/call.sh;
# copy r141.toml beside it; copy ../shared/peers to .peers (ignored); carry ["target/bundle", ".peers"] (tree 10 MiB +
# bundle 16 + peers 33 fit 64 MiB). On an H200: W1-W6 beside fi_decode_tc first (the standing of
# issues 3-5: W1 >= 85%, W5 >= 85% and 1.8x W2's bytes rate, W6 >= 93%; session 54: 83.5 /
# 81.5 / 92.2-92.6), two rounds of ours, then the suite. Elsewhere: the suite, then W1-W6 alone.
. "$(dirname "$0")/call-lib.sh" s62a
W=$R/w; mkdir -p $W
wset() {
  if is_h200 && [ -d .peers ]; then
    peers_w $W
    for round in 1 2; do
      timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-w-$round.log 2>&1; save "bench W $round rc $?"
    done
  else
    timeout 40 $B bench --rot-gib 2 > $R/bench-w-1.log 2>&1; save "bench W rc $?"
  fi
}
is_h200 && wset
ST=$((LIMIT - (SECONDS - start) - 60)); [ $ST -gt 240 ] && ST=240
timeout $ST $T > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
is_h200 || wset
sanitize racecheck decode/padded_head_dims
# The narrowed fp8 pair rule (session 61, not measured): 8 rows at fp8 80-112, auto (unpaired)
# against forced pairs (`_d256p_m16`), with `check` on the forced ones first.
timeout 60 $B check --workload-file target/bundle/r141.toml --kv-pairs on > $R/check-r141-on.log 2>&1; save "check r141 on rc $?"
for round in 1 2; do
  timeout 60 $B bench --workload-file target/bundle/r141.toml --rot-gib 1 > $R/bench-r141-auto-$round.log 2>&1; save "bench r141 auto rc $?"
  timeout 60 $B bench --workload-file target/bundle/r141.toml --rot-gib 1 --kv-pairs on > $R/bench-r141-on-$round.log 2>&1; save "bench r141 on rc $?"
done
