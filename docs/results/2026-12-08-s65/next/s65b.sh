#!/usr/bin/env bash
# Session 65 call b (warm machine after s65a, run as target/bundle/s65b.sh): the whole GPU
# suite on main, then memcheck on the graph case and racecheck on the cluster-merge case with
# what is left of LIMIT. On an H200 this is the first whole-suite run there since session 54.
. "$(dirname "$0")/call-lib.sh" s65b
tcase "" 240
sanitize memcheck decode/cuda_graph_replay
sanitize racecheck decode/cluster_merge_against_reference
sanitize racecheck decode/paired_fp8_tiles
