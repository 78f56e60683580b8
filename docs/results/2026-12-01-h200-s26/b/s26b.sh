#!/usr/bin/env bash
# s26b: change 93 (2-tile splits within one CTA per SM; the combine's cost per split past 32;
# balanced plans checked against their dispatch). `ferroflash check` on the small shapes and
# the random sweep (new build); A/B new vs base (bundle-h: HEAD before the change) on the small
# shapes (two interleaved rounds) and on the random sweep (one round each).
cd "$(dirname "$0")/../.."
R=/tmp/s26b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml; X=target/bundle/workloads-random.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s26b-logs.tgz" .); }
timeout 60 target/bundle/ferroflash check --workload-file $S > $R/check-small.log 2>&1; save "check small rc $?"
for rv in 1:new 1:base 2:base 2:new; do
  r=${rv%%:*}; v=${rv#*:}
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
  timeout 70 $bin bench --workload-file $S --rot-gib 0.5 > $R/small-r$r-$v.log 2>&1; save "small r$r $v rc $?"
done
for v in new base; do
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
  timeout 150 $bin bench --workload-file $X --rot-gib 0.5 > $R/random-$v.log 2>&1; save "random $v rc $?"
done
timeout 100 target/bundle/ferroflash check --workload-file $X > $R/check-random.log 2>&1; save "check random rc $?"
