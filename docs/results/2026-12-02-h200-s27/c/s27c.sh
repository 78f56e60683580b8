#!/usr/bin/env bash
# s27c: change 94 (the wgmma consumer's epilogue from registers: no merge scratch, no consumer
# barriers). The decode tests on the new build; A/B new / base (target/bundle-h = change 93)
# on the small spec-decode shapes and X3/X10/X11/X12, two interleaved rounds; racecheck on the
# wgmma test and on the suite's tests call b's racecheck did not reach.
cd "$(dirname "$0")/../.."
R=/tmp/s27c; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-h/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml; E=target/bundle/workloads-extra.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s27c-logs.tgz" .); }
timeout 170 target/bundle/gpu-tests decode/ > $R/suite-decode.log 2>&1; save "decode tests rc $?"
for round in 1 2; do
  for v in new base; do
    bin=target/bundle/ferroflash; [ $v = base ] && bin=target/bundle-h/ferroflash
    timeout 40 $bin bench --workload-file $S --workloads S01,S08,S13,S02 --rot-gib 0.5 > $R/small-r$round-$v.log 2>&1; save "small r$round $v rc $?"
    timeout 40 $bin bench --workload-file $E --workloads X3,X10,X11,X12 --rot-gib 0.5 > $R/extra-r$round-$v.log 2>&1; save "extra r$round $v rc $?"
  done
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in wgmma_consumer hnd_pages empty_requests bad_tensors cuda_graph timeline_records paged_probe row_split tma_tiles; do
  left=$((570-(SECONDS-start))); [ $left -lt 15 ] && break
  FF_LONG_KV=640 timeout $left $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests $t > $R/racecheck-$t.log 2>&1; save "racecheck $t rc $?"
done
