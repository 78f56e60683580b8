#!/usr/bin/env bash
# s24c: the build with one module per entry (kernels JIT-compiled on first use) and change 88.
# First-use time with the driver's JIT cache off, new vs base (bundle-f: one whole module);
# the GPU suite (graph capture with lazily loaded kernels included); memcheck on the graph,
# wgmma and narrow tests; then W1-W6 side by side with fi_decode_tc (peers' read ceiling) and
# the spec-decode extras. Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s24c; Q=/tmp/s24c-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz target/bundle-f/ferroflash.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
X=target/bundle/workloads-extra.toml
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s24c-logs.tgz" .); }
for v in new base new; do
  bin=$B; [ $v = base ] && bin=target/bundle-f/ferroflash
  t0=$(date +%s%N); CUDA_CACHE_DISABLE=1 timeout 120 $bin check --workloads W2 > $R/jit-$v.log 2>&1; rc=$?; t1=$(date +%s%N)
  save "first-use check W2 $v (JIT cache off) rc $rc wall $(( (t1 - t0) / 1000000 )) ms"
done
timeout 200 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
timeout 60 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests cuda_graph > $R/memcheck-graph.log 2>&1; save "memcheck graph rc $?"
timeout 40 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests wgmma_consumer > $R/memcheck-wgmma.log 2>&1; save "memcheck wgmma rc $?"
timeout 40 $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests narrow_rows > $R/memcheck-narrow.log 2>&1; save "memcheck narrow rc $?"
OUT=$Q PHASES="fi_decode_tc:120" timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; save "peers rc $?"
timeout 70 $B bench --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench.log 2>&1; save "bench rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report.txt 2>&1; save "report rc $?"
timeout 60 $B bench --workload-file $X --workloads X1,X3,X8,X10,X11,X12 > $R/x.log 2>&1; save "x rc $?"
cp $Q/env.json $Q/raw.jsonl $R/ 2>/dev/null; save "done"
