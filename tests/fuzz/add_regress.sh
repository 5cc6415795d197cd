#!/bin/bash
# add_regress.sh - makes fuzzer findings regression inputs: ARTIFACT... (crash-*, leak-*,
# timeout-*, oom-* files libFuzzer wrote) are copied to regress/fuzz_<name>.tflite and get
# an expect.txt line with what the runtime answers now (run it after the fix; read the
# lines it adds: each must name the problem, or be TFL_OK for a model that must run).
#
#   tests/fuzz/add_regress.sh [--build DIR] ARTIFACT...     (DIR: default build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
ninja -C "$build" tests/fuzz/test_fuzz_regress >/dev/null
for a in "$@"; do
  base=$(basename "$a" .tflite)
  dst=$here/regress/fuzz_${base#fuzz_}.tflite
  cp "$a" "$dst"
  name=$(basename "$dst")
  grep -q "^$name " "$here/regress/expect.txt" && continue
  "$build/tests/fuzz/test_fuzz_regress" --show "$dst" | tee -a "$here/regress/expect.txt"
done
