#!/usr/bin/env bash
# Session 9, call d: final run of main (168-register cap): suite, sanitizers on the narrow test,
# FlashInfer's tensor-core decode side by side with ferroflash on W1-W6, extras.
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
R=/tmp/s9d; mkdir -p $R
cd "$here"
timeout 170 bash run.sh tests > "$R/tests.log" 2>&1; echo "tests rc $?"
grep -E "^(FAIL|SKIP)|passed" "$R/tests.log" | cut -c1-600 | head -20
OUT=$R timeout 150 bash run.sh sanitize narrow_rows > "$R/sanitize.log" 2>&1; echo "sanitize rc $?"
grep -E "SUMMARY|exit|passed" "$R/sanitize.log"
P=$R/peers; mkdir -p $P
cd "$root"
OUT=$P PHASES="fi_decode_tc:200" timeout 230 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > "$R/peers.log" 2>&1; echo "peers rc $?"
cd "$here"
timeout 90 ./ferroflash bench --jsonl $P/raw.jsonl --env-json $P/env.json > "$R/bench.log" 2>&1; echo "bench rc $?"
timeout 90 ./ferroflash bench --workload-file ../../benches/workloads-extra.toml --workloads W7,X1,X2,X3,X5,X6,X7,X8,X9 --env-json $P/env.json --jsonl $R/raw-extra.jsonl >> "$R/bench.log" 2>&1; echo "extra rc $?"
cd "$root"
python3 .peers/bench_decode.py --out $P --report > "$R/report.txt" 2>&1
grep -vE "^\s*$" "$R/bench.log" | cut -c1-190
cat "$R/report.txt" | head -60
tar czf "$OUT/s9d.tgz" -C /tmp s9d
