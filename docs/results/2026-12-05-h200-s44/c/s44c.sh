#!/usr/bin/env bash
# Session 44 call c: bundle = main (code of 4bc6651). fi_decode_tc on slow4.toml (R06, R17 of
# seed 44; S02, S27 = R02, R27 of seed 42), then ferroflash bench on it under the planner
# (auto, twice) and under forced alternatives (balance off, splits 1-4, m-tiles 1/2, row-split
# off), --rot-gib 0.5, with the peers' env.
cd "$(dirname "$0")/../.."
R=/tmp/s44c; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
F=target/bundle/slow4.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s44c-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1
Q=$R/q; mkdir -p $Q
OUT=$Q PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workload-file $F > $R/peers.log 2>&1; save "peers rc $?"
i=0
for cfg in "" "--balance off" "--balance on" "--splits 1" "--splits 2" "--splits 3" "--splits 4" "--m-tiles 1" "--m-tiles 2" "--row-split off" ""; do
  i=$((i+1)); rem=$((570 - (SECONDS - start))); [ $rem -gt 25 ] || break
  echo "cfg $i: $cfg" > $R/b-$i.log
  timeout $((rem < 60 ? rem : 60)) $B bench --workload-file $F --rot-gib 0.5 --env-json $Q/env.json $cfg >> $R/b-$i.log 2>&1; save "b $i ($cfg) rc $?"
done
