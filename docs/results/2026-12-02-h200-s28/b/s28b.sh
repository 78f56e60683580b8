#!/usr/bin/env bash
# s28b: (1) rows per CTA on the short spec-decode shapes: --m-tiles 1 / 2 / auto (and the
# _m32 layout) on the small shapes with more than 16 rows per kv head, two interleaved rounds;
# (2) 40 new random shapes (seed 28): ferroflash check, then bench; (3) fi_decode_tc on the 15
# of them it has modules for.
cd "$(dirname "$0")/../.."
R=/tmp/s28b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; S=target/bundle/small.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s28b-logs.tgz" .); }
W=S01,S08,S11,S13,S16,S07
for round in 1 2; do
  timeout 40 $B bench --workload-file $S --workloads $W --rot-gib 0.5 > $R/mt-auto-r$round.log 2>&1; save "auto r$round rc $?"
  timeout 40 $B bench --workload-file $S --workloads $W --rot-gib 0.5 --m-tiles 1 > $R/mt-1-r$round.log 2>&1; save "m1 r$round rc $?"
  timeout 40 $B bench --workload-file $S --workloads $W --rot-gib 0.5 --m-tiles 2 > $R/mt-2-r$round.log 2>&1; save "m2 r$round rc $?"
  timeout 40 $B bench --workload-file $S --workloads $W --rot-gib 0.5 --m-tiles 2 --row-split off > $R/mt-2m32-r$round.log 2>&1; save "m32 r$round rc $?"
done
timeout 150 $B check --workload-file target/bundle/sweep28.toml > $R/check-sweep28.log 2>&1; save "check rc $?"
timeout 200 $B bench --workload-file target/bundle/sweep28.toml > $R/bench-sweep28.log 2>&1; save "bench rc $?"
Q=$R/peers; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:150" FLASHINFER_DISABLE_JIT=1 timeout 200 bash .peers/run_device.sh --workload-file target/bundle/sweep28-peers.toml > $R/peers.log 2>&1; save "peers rc $?"
