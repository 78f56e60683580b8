#!/usr/bin/env bash
# Session 50 call d: exp/s50 as merged (graph mode: combine's idle CTAs leave at once, the grid
# max(blocks + wave, 3 waves); no balanced plans at one CTA per SM): the GPU suite, the
# CUDA-graph test under memcheck and racecheck, then plan-only of every workload file with
# call a's binary (`ferroflash-old`: main's planner) and the new one, plandiff.py, and the
# shapes whose plan changed timed old against new (two rounds while time remains). plandiff.py
# is docs/results/2026-12-05-h200-s45/c/plandiff.py, copied into the bundle.
cd "$(dirname "$0")/../.."
R=/tmp/s50d; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-460}
B=target/bundle/ferroflash; O=target/bundle/ferroflash-old
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s50d-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
timeout 220 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
FF_LONG_KV=640 timeout 40 "$CS" --tool memcheck --error-exitcode 3 target/bundle/gpu-tests decode/cuda_graph > $R/memcheck-cuda_graph.log 2>&1; save "memcheck cuda_graph rc $? ($(grep -E 'passed,|ERROR SUMMARY' $R/memcheck-cuda_graph.log | tr '\n' ' '))"
FF_LONG_KV=640 timeout 50 "$CS" --tool racecheck --error-exitcode 3 target/bundle/gpu-tests decode/cuda_graph > $R/racecheck-cuda_graph.log 2>&1; save "racecheck cuda_graph rc $? ($(grep -E 'passed,|RACECHECK SUMMARY' $R/racecheck-cuda_graph.log | tr '\n' ' '))"
files="target/bundle/workloads.toml target/bundle/workloads-extra.toml target/bundle/workloads-random.toml target/bundle/workloads-sweep.toml target/bundle/workloads-short.toml target/bundle/workloads-d256.toml target/bundle/diff46.toml target/bundle/w7.toml"
mkdir -p $R/plan-old $R/plan-new
for f in $files; do
  timeout 60 $B bench --plan-only --workload-file $f > $R/plan-new/$(basename $f .toml).log 2>&1
  timeout 60 $O bench --plan-only --workload-file $f > $R/plan-old/$(basename $f .toml).log 2>&1
  save "plans $f"
done
python3 target/bundle/plandiff.py $R/plan-old $R/plan-new $R/diff.toml $files > $R/plandiff.txt 2>&1; save "plandiff rc $?"
if [ -s $R/diff.toml ]; then
  for round in 1 2; do
    for v in old new; do X=$B; [ $v = old ] && X=$O
      rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 15 ] || break 2
      timeout $rem $X bench --workload-file $R/diff.toml --rot-gib 0.5 > $R/bench-$v-$round.log 2>&1; save "bench $v round $round rc $?"
    done
  done
fi
