#!/usr/bin/env bash
# Session 59 call d: diagnostic benches of padded d96 against d128 over fp8 and bf16 K/V, on
# main after change 138 ($B) and experiment 139 (target/bundle/ferroflash-noef: main with the
# K/V copies under L2 evict_normal instead of evict_first): default plans, HND pages, paired
# fp8 tiles off, narrow consumers off. Copy as target/bundle/call.sh with diag.toml beside it;
# carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s59d
run() { # TAG BIN ARGS...
  local tag=$1 bin=$2; shift 2
  timeout 60 $bin bench --workload-file target/bundle/diag.toml --rot-gib 1 "$@" > $R/bench-$tag.log 2>&1; save "bench $tag rc $?"
}
NE=target/bundle/ferroflash-noef
run main1 $B
run noef1 $NE
run hnd1 $B --kv-layout hnd
run paired-off $B --paired off
run narrow-off $B --narrow off
run main2 $B
run noef2 $NE
run hnd-noef $NE --kv-layout hnd
# W1-W6, main and 139, while time remains (on any card)
for x in main noef; do
  bin=$B; [ $x = noef ] && bin=$NE
  rem=$((LIMIT - (SECONDS - start))); [ $rem -gt 45 ] && { timeout 40 $bin bench --rot-gib 2 > $R/bench-w-$x.log 2>&1; save "bench W $x rc $?"; }
done
