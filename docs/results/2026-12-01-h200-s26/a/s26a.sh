#!/usr/bin/env bash
# s26a: forced split sweep on small shapes (small.toml: the 4-tile minimum split binds, or few
# blocks), side by side with fi_decode_tc; then memcheck over the whole GPU suite (timed).
cd "$(dirname "$0")/../.."
R=/tmp/s26a; Q=/tmp/s26a-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
S=target/bundle/small.toml; F=target/bundle/ferroflash
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s26a-logs.tgz" .); }
timeout 60 $F check --workload-file $S > $R/check.log 2>&1; save "check rc $?"
for s in auto 1 2 3 4 6 8 12 16 32 64 128; do
  timeout 60 $F bench --workload-file $S --rot-gib 0.5 --splits $s > $R/split-$s.log 2>&1; save "splits $s rc $?"
done
timeout 60 $F bench --workload-file $S --rot-gib 0.5 --balance on > $R/balance-on.log 2>&1; save "balance on rc $?"
OUT=$Q PHASES="fi_decode_tc:120" FLASHINFER_DISABLE_JIT=1 timeout 130 bash .peers/run_device.sh --workload-file $S > $R/peers.log 2>&1; save "peers rc $?"
timeout 90 $F bench --workload-file $S --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench-auto.log 2>&1; save "bench rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report.txt 2>&1; save "report rc $?"
cp $Q/env.json $Q/raw.jsonl $R/ 2>/dev/null
timeout 40 $F bench --workload-file $S --workloads S01-R27-e4m3-d128-g6-q8-b3-1000 --rot-gib 0.5 --timeline $R/tl-auto > $R/tl-auto.log 2>&1; save "tl auto rc $?"
timeout 40 $F bench --workload-file $S --workloads S01-R27-e4m3-d128-g6-q8-b3-1000 --rot-gib 0.5 --splits 16 --timeline $R/tl-16 > $R/tl-16.log 2>&1; save "tl 16 rc $?"
left=$((570 - (SECONDS-start)))
FF_LONG_KV=640 timeout $left $CS --tool memcheck --error-exitcode 3 --print-limit 20 target/bundle/gpu-tests > $R/memcheck.log 2>&1; save "memcheck rc $?"
