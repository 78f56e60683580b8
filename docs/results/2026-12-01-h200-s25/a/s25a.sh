#!/usr/bin/env bash
# s25a: HEAD's build (b5d3b83 kernels). JIT warm-up; the GPU suite (with the new
# device/preload_loads_every_kernel); `ferroflash check` on 40 random shapes none of the
# named workloads covers (sweep25.toml, seeded); W1-W6 side by side with fi_decode_tc.
# Logs re-packed into $OUT after each step.
cd "$(dirname "$0")/../.."
R=/tmp/s25a; Q=/tmp/s25a-peers; mkdir -p $R $Q
for f in target/bundle/ferroflash.xz target/bundle/gpu-tests.xz; do [ -e $f ] && xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
B=target/bundle/ferroflash
S=target/bundle/sweep25.toml
save() { echo "$1 t=$((SECONDS-start))" >> $R/steps.log; (cd $R && tar czf "$OUT/s25a-logs.tgz" .); }
timeout 60 $B check --workloads W2 > $R/warm.log 2>&1; save "warm rc $?"
timeout 230 target/bundle/gpu-tests > $R/suite.log 2>&1; save "suite rc $?"
timeout 150 $B check --workload-file $S > $R/check-sweep.log 2>&1; save "check sweep rc $?"
OUT=$Q PHASES="fi_decode_tc:120" timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > $R/peers.log 2>&1; save "peers rc $?"
timeout 70 $B bench --jsonl $Q/raw.jsonl --env-json $Q/env.json > $R/bench.log 2>&1; save "bench rc $?"
timeout 20 python3 .peers/bench_decode.py --out $Q --report > $R/report.txt 2>&1; save "report rc $?"
cp $Q/env.json $Q/raw.jsonl $R/ 2>/dev/null; save "done"
