#!/bin/bash
# run_fuzzer.sh - one libFuzzer run (the short runs of suite 'fuzz', and the long runs in
# README.md): FUZZER CORPUS_DIR DICT SECONDS SEED_DIR...
#
# New inputs go to CORPUS_DIR (created; the seed folders are only read). A finding stops
# the run with a non-zero status and leaves crash-*/leak-*/timeout-*/oom-* beside the
# corpus folder; add it to regress/ (README.md says how).
set -euo pipefail
exe=$1 corpus=$2 dict=$3 secs=$4
shift 4
mkdir -p "$corpus"
# XNNPACK is not built with the sanitizers; its asserts abort, which libFuzzer reports.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec "$exe" -max_total_time="$secs" -dict="$dict" -timeout=20 -rss_limit_mb=3072 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$corpus/../$(basename "$exe")-" "$corpus" "$@"
