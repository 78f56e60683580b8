#!/usr/bin/env bash
# Session 64 call b (warm H100 after call a): the GPU suite on main at 849ce51, memcheck on the
# back-to-back and graph cases with what is left.
. "$(dirname "$0")/call-lib.sh" s64b
tcase "" 200
sanitize memcheck decode/cuda_graph_replay
