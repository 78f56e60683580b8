#!/usr/bin/env bash
# Ready for the next session's first call (written in session 59): 1. the suite cases that
# session 59's call e did not reach on main after change 138, then memcheck on the graph case;
# 2. on an H200, W1-W6 side by side with fi_decode_tc (two rounds of ours), else one round.
# `cargo xtask bundle`, `rm -rf target/bundle/ptx`, copy this as target/bundle/call.sh; copy
# ../shared/peers to .peers/ (ignored); carry ["target/bundle", ".peers"] (about 63 MiB with
# the tree: drop .peers on a card that is not an H200 if the tool refuses the size).
. "$(dirname "$0")/call-lib.sh" s60a
for c in tma_tiles hnd_pages far_pages empty_requests bad_tensors cuda_graph_replay bench/paged_probe; do
  timeout 60 $T $c > $R/t-$(echo $c | tr '/' '_').log 2>&1; save "$c rc $? ($(grep -E 'passed,' $R/t-$(echo $c | tr '/' '_').log))"
done
sanitize memcheck decode/cuda_graph_replay_after_update
if is_h200 && [ -d .peers ]; then
  W=$R/w; peers_w $W
  for round in 1 2; do
    timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
  done
else
  timeout 40 $B bench > $R/bench-1.log 2>&1; save "bench rc $?"
fi
