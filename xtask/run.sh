#!/usr/bin/env bash
# GPU bundle runner (copied to target/bundle/run.sh by `cargo xtask bundle`). Needs only the
# NVIDIA driver. Usage: bash run.sh [tests|sanitize|bench|soak|ab|all] [FILTER]
#   tests     the GPU test suite: PASS/FAIL/SKIP per case and a summary line
#   sanitize  the suite under compute-sanitizer memcheck, racecheck and synccheck (the sweeps'
#             long length 640 instead of 4096: FF_LONG_KV)
#   bench     `ferroflash bench` on W1-W6 (JSON lines to $OUT/raw.jsonl when OUT is set)
#   soak      10,000 random-shape launches (FF_SOAK_LAUNCHES), outputs checked, memory level
#   ab        A/B: `ferroflash bench` of this bundle and of FF_AB_OTHER (other builds'
#             ferroflash, .xz or not, separated by spaces), same FILTER and FF_BENCH_ARGS,
#             FF_AB_ROUNDS (2) interleaved rounds; FF_AB_EXTRA (e.g. W7,X6) adds those
#             workloads of workloads-extra.toml (benches/, copied here) to every run
# Exit code: non-zero when any step fails.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
# `cargo xtask bundle` compresses the binaries when it can: unpack them once (xz, or python3).
for f in "$here"/gpu-tests.xz "$here"/ferroflash.xz; do
  [ -e "$f" ] || continue
  xz -d -f "$f" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$f" && rm -f "$f"
  chmod +x "${f%.xz}"
done
what="${1:-tests}"; filter="${2:-}"
rc=0
run_tests() { "$here/gpu-tests" $filter || rc=1; }
run_sanitize() {
  local cs; cs="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    FF_LONG_KV="${FF_LONG_KV:-640}" "$cs" --tool "$tool" --error-exitcode 3 --print-limit 20 "$here/gpu-tests" $filter > "/tmp/ff-$tool.log" 2>&1
    local r=$?
    grep -E "^(PASS|FAIL|SKIP)|passed,|ERROR SUMMARY|RACECHECK SUMMARY|Error" "/tmp/ff-$tool.log" | grep -v "^PASS" | tail -25
    echo "compute-sanitizer $tool exit $r"
    [ $r -eq 0 ] || rc=1
    [ -n "${OUT:-}" ] && cp "/tmp/ff-$tool.log" "$OUT/sanitize-$tool.log" 2>/dev/null
  done
}
run_bench() { "$here/ferroflash" bench ${filter:+--workloads $filter} ${OUT:+--jsonl $OUT/raw.jsonl} ${FF_BENCH_ARGS:-} || rc=1; }
case "$what" in
  tests) run_tests ;;
  sanitize) run_sanitize ;;
  bench) run_bench ;;
  soak) "$here/gpu-tests" soak || rc=1 ;;
  ab)
    others=""
    for other in ${FF_AB_OTHER:-}; do
      case "$other" in
        *.xz) xz -d -f "$other" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[1][:-3],'wb').write(lzma.open(sys.argv[1]).read())" "$other"; other="${other%.xz}" ;;
      esac
      chmod +x "$other"
      others="$others $other"
    done
    [ -n "$others" ] || { echo "ab: set FF_AB_OTHER to the other builds' ferroflash binaries"; exit 2; }
    extra_file="$here/workloads-extra.toml"
    for round in $(seq 1 "${FF_AB_ROUNDS:-2}"); do
      for b in "$here/ferroflash" $others; do
        echo "== ab round $round: $b"
        "$b" bench ${filter:+--workloads $filter} ${FF_BENCH_ARGS:-} | grep -v "^device" || rc=1
        if [ -n "${FF_AB_EXTRA:-}" ]; then
          "$b" bench --workload-file "$extra_file" --workloads "$FF_AB_EXTRA" ${FF_BENCH_ARGS:-} | grep -v "^device\|^ceilings\|^workload" || rc=1
        fi
      done
    done ;;
  all) run_tests; run_sanitize; run_bench ;;
  *) echo "usage: run.sh [tests|sanitize|bench|soak|ab|all] [FILTER]"; exit 2 ;;
esac
echo "run.sh $what: exit $rc"
exit $rc
