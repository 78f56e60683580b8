#!/usr/bin/env bash
# Ready for session 38 (branch experiment/combine-small-ctas, Note [combine CTA size]): build
# main's bundle first and keep its ferroflash as target/bundle/ferroflash-main.xz, then the
# branch's bundle (`cargo xtask bundle`, `rm -rf target/bundle/ptx`), copy this script and the
# main binary into target/bundle, run with carry ["target/bundle"]. ~450 s.
# (1) main / branch, two interleaved rounds: W1/W2/W5/W6, then W7 and X1-X12 once each (which of
# them run the combine, and with how many threads, is in the bench's note column);
# (2) `--combine-parts 1, 2, 4` on main (the zero-code variant); (3) the branch's W1 timeline
# (the bench now also records the call before: `cargo xtask timeline` prints how long after
# its decode grid and its combine ended this call's dependency was met);
# (4) the combine tests, memcheck and racecheck on them, then the whole suite on the branch.
cd "$(dirname "$0")/../.."
R=/tmp/s38a; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; M=target/bundle/ferroflash-main; X=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s38a-logs.tgz" .); }
for round in 1 2; do
  for b in main new; do
    E=$B; [ $b = main ] && E=$M
    timeout 40 $E bench --workloads W1,W2,W5,W6 > $R/w-$b-r$round.log 2>&1; save "w $b r$round rc $?"
  done
done
for b in main new; do
  E=$B; [ $b = main ] && E=$M
  timeout 90 $E bench --workload-file $X > $R/x-$b.log 2>&1; save "x $b rc $?"
done
for n in 1 2 4; do
  timeout 20 $M bench --workloads W1 --combine-parts $n > $R/w1-parts$n.log 2>&1; save "parts $n rc $?"
done
timeout 30 $B bench --workloads W1 --timeline $R/tl > $R/tl.log 2>&1; save "tl rc $?"
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
for t in combine_parts splits1_equals_splitsn; do
  timeout 60 target/bundle/gpu-tests $t > $R/t-$t.log 2>&1; save "test $t rc $?"
  FF_LONG_KV=640 timeout 90 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/memcheck-$t.log 2>&1; save "memcheck $t rc $?"
  FF_LONG_KV=640 timeout 90 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
rem=$((590 - (SECONDS - start)))
[ $rem -gt 10 ] && { timeout $rem target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"; }
