#!/usr/bin/env bash
# Session 57 call d (main with change 135 merged).
# 0. on an H200 only: W1-W6 beside fi_decode_tc (the issues' standing; kernels unchanged).
# 1. the padded head dims' share of the read ceiling: padded-bf16.toml auto, the paged read
#    probe of the same cut (`--paged-probe`), and HND pages; fi_decode_tc on the same file
#    (whether the peers' modules hold head dims 80, 96, 192).
# Copy this script and padded-bf16.toml to target/bundle/ (the script as call.sh), carry
# ["target/bundle", ".peers"].
. "$(dirname "$0")/call-lib.sh" s57d
if is_h200; then
  peers_w $R/peers
  timeout 20 $B bench --jsonl $R/raw.jsonl --env-json $R/peers/env.json > $R/bench-w.log 2>&1; save "bench w rc $?"
fi
F=target/bundle/padded-bf16.toml
timeout 25 $B bench --workload-file $F --rot-gib 0.5 > $R/bench-padded.log 2>&1; save "bench padded rc $?"
timeout 25 $B bench --workload-file $F --rot-gib 0.5 --paged-probe > $R/bench-padded-probe.log 2>&1; save "bench padded probe rc $?"
timeout 25 $B bench --workload-file $F --rot-gib 0.5 --kv-layout hnd > $R/bench-padded-hnd.log 2>&1; save "bench padded hnd rc $?"
[ $((SECONDS-start)) -lt $((LIMIT-45)) ] && { Q=$R/q; mkdir -p $Q; OUT=$Q PHASES="fi_decode_tc:40" FLASHINFER_DISABLE_JIT=1 timeout 45 bash .peers/run_device.sh --workload-file $F > $R/peers-padded.log 2>&1; save "peers padded rc $?"; }
