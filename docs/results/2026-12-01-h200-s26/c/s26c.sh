#!/usr/bin/env bash
# s26c: change 93 as kept (2-tile chunks where 4-tile ones leave over half of the SMs idle;
# the combine priced by its rounds of loads; the combine's lanes per unit from the contract).
# The GPU suite; `ferroflash check` on the small shapes; A/B new vs base (bundle-h) on the small
# shapes (one round each); the random sweep (new build; call b has the base's).
cd "$(dirname "$0")/../.."
R=/tmp/s26c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml; X=target/bundle/workloads-random.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s26c-logs.tgz" .); }
timeout 220 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
timeout 50 target/bundle/ferroflash check --workload-file $S > $R/check-small.log 2>&1; save "check small rc $?"
for v in new base; do
  bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
  timeout 60 $bin bench --workload-file $S --rot-gib 0.5 > $R/small-$v.log 2>&1; save "small $v rc $?"
done
timeout 140 target/bundle/ferroflash bench --workload-file $X --rot-gib 0.5 > $R/random-new.log 2>&1; save "random new rc $?"
