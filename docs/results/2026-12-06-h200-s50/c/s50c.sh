#!/usr/bin/env bash
# Session 50 call c: exp/s50 as built for merge (`ferroflash`) and `ferroflash-hyb` (exp/s50 with the decode grid's idle CTAs last again; the combine's
# idle CTAs still leave at once). 1. Side by side on W1-W6: fi_decode_tc, then ours, two rounds,
# and W7. 2. Graph-mode plans x1 and x4, hyb and new interleaved: which idle layout costs
# the one-request plan (W1 x1 +0.8 us in call b) and which one gives W3/W4 their gain.
# 3. Head-dim-256 shapes whose balanced plans call b dropped: automatic against --balance on
# (their old automatic plans).
cd "$(dirname "$0")/../.."
R=/tmp/s50c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; O=target/bundle/ferroflash-old; H=target/bundle/ferroflash-hyb
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s50c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
W=$R/w; mkdir -p $W
OUT=$W PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers-w.log 2>&1; save "peers w rc $?"
for round in 1 2; do
  timeout 40 $B bench --jsonl $W/raw-$round.jsonl --env-json $W/env.json > $R/bench-$round.log 2>&1; save "bench $round rc $?"
done
timeout 30 $B bench --workload-file target/bundle/w7.toml --env-json $W/env.json > $R/bench-w7.log 2>&1; save "bench w7 rc $?"
for round in 1 2; do
  for g in 1 4; do
    for v in hyb new; do X=$B; [ $v = hyb ] && X=$H
      timeout 40 $X bench --graph-plan $g --env-json $W/env.json > $R/bench-g$g-$v-$round.log 2>&1; save "bench graph x$g $v $round rc $?"
    done
  done
done
S=D00,D07,D09,R26  # old automatic plans of these four = the balanced ones (--balance on), call b
for bal in auto on; do
  timeout 45 $B bench --workload-file target/bundle/diff46.toml --workloads $S --rot-gib 0.5 --balance $bal --env-json $W/env.json > $R/bench-d256-$bal.log 2>&1; save "bench d256 balance $bal rc $?"
done
