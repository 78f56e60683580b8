#!/usr/bin/env bash
# Session 65 (for session 66): change 147 (branch exp/147-fp8-early-release: the paired narrow
# fp8 consumers hand their stages back before softmax and P·V) against main, on one machine.
# Build: `cargo xtask bundle` on main, keep target/bundle/ferroflash.xz; `cargo xtask bundle`
# on the branch, its ferroflash.xz as target/bundle/ferroflash-147.xz (its gpu-tests.xz stays:
# the suite cases below test the branch's kernels), main's ferroflash.xz back, `rm -rf
# target/bundle/ptx`; this file and next/e147.toml into target/bundle/; carry
# ["target/bundle"] (no .peers needed). `LIMIT=400 bash target/bundle/s66b.sh; cat /tmp/s66b/steps.log`.
# Prebuilt in session 65 (if target/ survived): `cp target/prebuilt/s66b/* target/bundle/`
# over the s65a bundle (its gpu-tests.xz replaced by the branch's) does all of the above.
# About 250 s.
. "$(dirname "$0")/call-lib.sh" s66b
E=target/bundle/e147.toml; N=target/bundle/ferroflash-147
# 1. Correctness of the branch's paired consumers: the paired, fp8 and cluster cases, then
#    racecheck on the paired case (the release now precedes the stage's last use in registers,
#    not its last shared-memory read), `check` of the branch on e147.
tcase decode/paired_fp8_tiles 60
tcase decode/fp8_quick 60
tcase decode/fp8_sweep 120
tcase decode/cluster_merge_against 60
sanitize racecheck decode/paired_fp8_tiles
timeout 60 $N check --workload-file $E > $R/check-147.log 2>&1; save "check 147 rc $? ($(grep -c PASS $R/check-147.log) PASS, $(grep -c FAIL $R/check-147.log) FAIL)"
# 2. A/B, alternating, two rounds each. Expected (docs/perf.md, change 147): the paired shapes'
#    stage pairs back ~0.5 us sooner per step, W5 (E1) / X5 / X6 -0.3..0.8 us on an H100,
#    -0.5..1 on an H200; E4-E7 -1..3%; nothing slower beyond noise (0.2 us).
for r in 1 2; do
  timeout 40 $B bench --workload-file $E --rot-gib 1 > $R/bench-main-$r.log 2>&1; save "bench main $r rc $?"
  timeout 40 $N bench --workload-file $E --rot-gib 1 > $R/bench-147-$r.log 2>&1; save "bench 147 $r rc $?"
done
# 3. The stamps of both on E1 (W5): the step's pass and wait, the steady rate.
timeout 30 $B bench --workload-file $E --workloads E1 --timeline $R/tl-main > $R/tl-main.log 2>&1; save "timeline main rc $?"
timeout 30 $N bench --workload-file $E --workloads E1 --timeline $R/tl-147 > $R/tl-147.log 2>&1; save "timeline 147 rc $?"
