#!/usr/bin/env bash
# Session 58 call b (same bundle as call a, branch exp/137-l2-128, flag off): what call a's
# 560 s did not reach on the H100 it got: the last suite cases (timeline, back_to_back; the
# graph case ran in call a), soak 4000 launches (draws padded fp8 head dims), racecheck on the
# graph replay, initcheck on the padded cases. Copy as target/bundle/call.sh, carry ["target/bundle"].
. "$(dirname "$0")/call-lib.sh" s58b
timeout 60 $T timeline > $R/t-timeline.log 2>&1; save "timeline rc $? ($(grep -E 'passed,' $R/t-timeline.log))"
timeout 60 $T back_to_back > $R/t-b2b.log 2>&1; save "back_to_back rc $? ($(grep -E 'passed,' $R/t-b2b.log))"
FF_SOAK_LAUNCHES=4000 timeout 100 $T soak > $R/soak.log 2>&1; save "soak rc $? ($(grep -E 'passed,' $R/soak.log))"
sanitize initcheck decode/padded
sanitize racecheck decode/cuda_graph
