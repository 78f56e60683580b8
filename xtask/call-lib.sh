#!/usr/bin/env bash
# Shared preamble of the device-call scripts (copied to target/bundle/call-lib.sh by
# `cargo xtask bundle`). A call script in target/bundle/ starts with
#   . "$(dirname "$0")/call-lib.sh" s53a
# and then has, in the repository root: the binaries unpacked ($B = ferroflash, $T = gpu-tests),
# $R = /tmp/<name> for its logs, `save MSG` (a line in $R/steps.log with the seconds since the
# start, and $R packed to $OUT/<name>-logs.tgz: what a call left behind comes back even when it
# is cut), $R/gpu.txt from nvidia-smi, `tcase FILTER SECONDS` (suite cases), `is_h200`,
# `peers_w DIR` (fi_decode_tc on W1-W6 from a copy of shared/peers in .peers/), and
# `sanitize TOOL FILTER` (compute-sanitizer on the suite cases FILTER while $LIMIT seconds
# (default 570) are not used up; false when they are), `ben TAG FILE SECONDS ARGS...` (one
# `ferroflash bench` of the workload file FILE, 1 GiB of rotated inputs, log bench-TAG.log),
# `chk TAG FILE SECONDS ARGS...` (`ferroflash check` of FILE, PASS / FAIL counts in steps.log)
# and `wset DIR` (on an H200 with .peers: fi_decode_tc on W1-W6, then two rounds of our bench
# as JSON lines beside it; elsewhere our W1-W6 once).
CALL_NAME="${1:?call name}"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
R=/tmp/$CALL_NAME; mkdir -p "$R"
for f in target/bundle/*.xz; do [ -e "$f" ] || continue; xz -d -f "$f"; chmod +x "${f%.xz}"; done
start=$SECONDS
LIMIT=${LIMIT:-570}
B=target/bundle/ferroflash; T=target/bundle/gpu-tests
CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
save() { echo "$1 t=$((SECONDS-start))" >> "$R/steps.log"; (cd "$R" && tar czf "$OUT/$CALL_NAME-logs.tgz" .); }
is_h200() { grep -q H200 "$R/gpu.txt"; }
peers_w() { # DIR: fi_decode_tc on W1-W6, its env.json (the read ceiling) for our bench
  mkdir -p "$1"
  OUT="$1" PHASES="fi_decode_tc:90" FLASHINFER_DISABLE_JIT=1 timeout 100 bash .peers/run_device.sh --workloads W1,W2,W3,W4,W5,W6 > "$R/peers-w.log" 2>&1
  save "peers w rc $?"
}
tcase() { # FILTER SECONDS: the suite cases FILTER, log t-<filter>.log, result in steps.log
  local log; log=$R/t-$(echo "$1" | tr '/' '_').log
  timeout "$2" $T "$1" > "$log" 2>&1; save "$1 rc $? ($(grep -E 'passed,' "$log"))"
}
ben() { # TAG FILE SECONDS ARGS: `ferroflash bench` on FILE, 1 GiB rotated, log bench-TAG.log
  local tag=$1 file=$2 secs=$3; shift 3
  timeout "$secs" $B bench --workload-file "$file" --rot-gib 1 "$@" > "$R/bench-$tag.log" 2>&1; save "bench $tag rc $?"
}
chk() { # TAG FILE SECONDS ARGS: `ferroflash check` on FILE, log check-TAG.log
  local tag=$1 file=$2 secs=$3 log; shift 3; log=$R/check-$tag.log
  timeout "$secs" $B check --workload-file "$file" "$@" > "$log" 2>&1; save "check $tag rc $? ($(grep -c PASS "$log") PASS, $(grep -c FAIL "$log") FAIL)"
}
wset() { # DIR: W1-W6 beside fi_decode_tc on an H200 (two rounds, JSON lines); elsewhere once
  mkdir -p "$1"
  if is_h200 && [ -d .peers ]; then
    peers_w "$1"
    for round in 1 2; do
      timeout 40 $B bench --jsonl "$1/raw-$round.jsonl" --env-json "$1/env.json" > "$R/bench-w-$round.log" 2>&1; save "bench W $round rc $?"
    done
  else
    timeout 40 $B bench > "$R/bench-w-1.log" 2>&1; save "bench W rc $?"
  fi
}
sanitize() { # TOOL FILTER
  local rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 20 ] || return 1
  local log; log=$R/$1-$(echo "$2" | tr '/' '_').log
  FF_LONG_KV=640 timeout $rem "$CS" --tool "$1" --error-exitcode 3 --print-limit 20 $T "$2" > "$log" 2>&1
  save "$1 $2 rc $? ($(grep -E 'passed,|ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' '))"
}
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,temperature.gpu --format=csv > "$R/gpu.txt" 2>&1
save gpu
