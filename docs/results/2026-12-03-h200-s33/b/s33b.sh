#!/usr/bin/env bash
# s33b: why persistent CTAs ran slower (call a). Builds: ferroflash (persistent CTAs trigger
# their dependents at their last item), ferroflash-p1 (at entry, as call a's, with the NextItem
# stamp), ferroflash-main (session 32). Uniform shapes R03b, R20, P02: bench, two rounds;
# timelines on/off; check of persist.toml on the new build.
cd "$(dirname "$0")/../.."
R=/tmp/s33b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main; P1=target/bundle/ferroflash-p1
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s33b-logs.tgz" .); }
W="--workload-file target/bundle/persist.toml --workloads R03b,R20,P02 --rot-gib 0.5"
for round in 1 2; do
  timeout 40 $B bench $W --persistent on > $R/bench-late-on-r$round.log 2>&1; save "late on r$round rc $?"
  timeout 40 $P1 bench $W --persistent on > $R/bench-early-on-r$round.log 2>&1; save "early on r$round rc $?"
  timeout 40 $B bench $W --persistent off > $R/bench-off-r$round.log 2>&1; save "off r$round rc $?"
  timeout 40 $M bench $W > $R/bench-main-r$round.log 2>&1; save "main r$round rc $?"
done
for v in late-on early-on off; do
  X=$B; [ $v = early-on ] && X=$P1; m=on; [ $v = off ] && m=off
  timeout 40 $X bench --workload-file target/bundle/persist.toml --workloads R03b,P02 --persistent $m --timeline $R/tl-$v > $R/tl-$v.log 2>&1; save "tl $v rc $?"
done
timeout 60 $B check --workload-file target/bundle/persist.toml > $R/check-persist.log 2>&1; save "check rc $?"
