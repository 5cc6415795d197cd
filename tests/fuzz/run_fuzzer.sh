#!/bin/bash
# run_fuzzer.sh - one libFuzzer run (the short runs of suite 'fuzz', and the long runs in
# README.md): FUZZER CORPUS_DIR DICT SECONDS SEED_DIR...
#
# New inputs go to CORPUS_DIR (created; the seed folders are only read). A finding stops
# the run with a non-zero status and leaves crash-*/leak-*/timeout-*/oom-* beside the
# corpus folder; add it to regress/ (README.md says how). TFL_FUZZ_MAX_LEN: the largest
# input (default 64 KiB; fuzz_gl takes 2 MiB so that real models seed it);
# TFL_FUZZ_GL_CACHE: fuzz_gl's program cache folder (created). TFL_FUZZ_ARGS: more
# libFuzzer flags (the long runs' -fork=1 -ignore_crashes=1, README.md).
# TFL_FUZZ_SEED_EVERY=N (N > 1): only every Nth file of the seed folders (sorted) seeds the
# run: fuzz_gl runs a few inputs a second, and a short run would spend its time on seeds.
set -euo pipefail
exe=$1 corpus=$2 dict=$3 secs=$4
shift 4
mkdir -p "$corpus" "${TFL_FUZZ_GL_CACHE:-$corpus}"
# XNNPACK is not built with the sanitizers; its asserts abort, which libFuzzer reports.
# intercept_tls_get_addr=0: sanitizer runtimes before LLVM 17 / GCC 14 can misread glibc
# >= 2.25's dynamic TLS blocks (one in every GL process) and LeakSanitizer's tracer then
# crashes at exit (README.md, "Sanitizers").
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
seeds=()
if [ "${TFL_FUZZ_SEED_EVERY:-1}" -gt 1 ]; then
  list=$corpus/../$(basename "$exe")-seeds.txt
  find "$@" -maxdepth 1 -type f | LC_ALL=C sort | awk -v n="$TFL_FUZZ_SEED_EVERY" 'NR % n == 1' | paste -sd, > "$list"
  seeds=(-seed_inputs=@"$list")
  set --
fi
exec "$exe" -max_total_time="$secs" -dict="$dict" -timeout=20 -rss_limit_mb=3072 -max_len="${TFL_FUZZ_MAX_LEN:-65536}" \
  -print_final_stats=1 -error_exitcode=1 ${TFL_FUZZ_ARGS:-} -artifact_prefix="$corpus/../$(basename "$exe")-" "${seeds[@]}" "$corpus" "$@"
