#!/usr/bin/env bash
# s27b: per-CTA timelines of the small spec-decode shapes still slower than FlashInfer (S01, S08,
# S13) beside small shapes that are faster (S04, S14); then racecheck and synccheck over the
# whole GPU suite (FF_LONG_KV=640), same build as call a.
cd "$(dirname "$0")/../.."
R=/tmp/s27b; mkdir -p $R
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s27b-logs.tgz" .); }
timeout 80 target/bundle/ferroflash bench --workload-file $S --workloads S01,S04,S08,S13,S14 --rot-gib 0.5 --timeline $R/tl > $R/timeline.log 2>&1; save "timeline rc $?"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FF_LONG_KV=640 timeout 330 $CS --tool racecheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests > $R/racecheck.log 2>&1; save "racecheck rc $?"
FF_LONG_KV=640 timeout $((575-(SECONDS-start))) $CS --tool synccheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests > $R/synccheck.log 2>&1; save "synccheck rc $?"
