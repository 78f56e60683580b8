#!/usr/bin/env bash
# Session 50 call b: branch exp/s50 (graph mode: idle CTAs first and leaving at once, grid
# max(blocks + wave, 3 waves); no balanced plans at one CTA per SM) against call a's binary
# (`ferroflash-old`: main + the graph-mode combine's parts per batch, which call a measured
# neutral). 1. The GPU suite (the decode and combine kernels' entries changed). 2. Graph-mode
# plans at capacity x1, x4, x16 and the direct plans, old and new interleaved. 3. The six
# head-dim-256 shapes of call a's balance A/B, old and new automatic plans. 4. memcheck and
# racecheck of the CUDA-graph test.
cd "$(dirname "$0")/../.."
R=/tmp/s50b; mkdir -p $R
for f in target/bundle/*.xz; do xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash; O=target/bundle/ferroflash-old
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s50b-logs.tgz" .); }
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > $R/gpu.txt 2>&1; save gpu
timeout 240 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $? ($(grep -E 'passed,' $R/suite.log))"
for g in 1 4; do
  for v in old new; do X=$B; [ $v = old ] && X=$O
    timeout 40 $X bench --graph-plan $g > $R/bench-g$g-$v.log 2>&1; save "bench graph x$g $v rc $?"
  done
done
for v in old new; do X=$B; [ $v = old ] && X=$O
  timeout 40 $X bench --graph-plan 16 --workloads W1,W2,W5 > $R/bench-g16-$v.log 2>&1; save "bench graph x16 $v rc $?"
  timeout 30 $X bench --graph-plan 1 --workload-file target/bundle/w7.toml > $R/bench-w7-g1-$v.log 2>&1; save "bench w7 graph x1 $v rc $?"
done
for v in new old; do X=$B; [ $v = old ] && X=$O
  timeout 40 $X bench > $R/bench-direct-$v.log 2>&1; save "bench direct $v rc $?"
done
S=D00,D07,D09,R26,R02,R05
for v in new old; do X=$B; [ $v = old ] && X=$O
  timeout 45 $X bench --workload-file target/bundle/diff46.toml --workloads $S --rot-gib 0.5 > $R/bench-d256-$v.log 2>&1; save "bench d256 $v rc $?"
done
timeout 60 $B bench --graph-plan 1 --workloads W3 --timeline $R/tl-g1 > $R/bench-tl-g1.log 2>&1; save "timeline graph x1 rc $?"
FF_LONG_KV=640 timeout 60 "$CS" --tool memcheck --error-exitcode 3 target/bundle/gpu-tests decode/cuda_graph > $R/memcheck-cuda_graph.log 2>&1; save "memcheck cuda_graph rc $? ($(grep -E 'passed,|ERROR SUMMARY' $R/memcheck-cuda_graph.log | tr '\n' ' '))"
FF_LONG_KV=640 timeout 60 "$CS" --tool racecheck --error-exitcode 3 target/bundle/gpu-tests decode/cuda_graph > $R/racecheck-cuda_graph.log 2>&1; save "racecheck cuda_graph rc $? ($(grep -E 'passed,|RACECHECK SUMMARY' $R/racecheck-cuda_graph.log | tr '\n' ' '))"
FF_LONG_KV=640 timeout 60 "$CS" --tool synccheck --error-exitcode 3 target/bundle/gpu-tests decode/cuda_graph > $R/synccheck-cuda_graph.log 2>&1; save "synccheck cuda_graph rc $? ($(grep -E 'passed,|ERROR SUMMARY' $R/synccheck-cuda_graph.log | tr '\n' ' '))"
