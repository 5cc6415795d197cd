#!/bin/bash
# test.sh - the whole test suite on a fresh Debian 12 machine: installs what is missing,
# fetches models and pictures, builds, runs every test, then runs the CPU suites again in
# an ASan+UBSan build, the concurrency and unit suites in a ThreadSanitizer build, and a
# short libFuzzer run of each fuzz target (clang, ASan+UBSan).
#
# The last line printed is "N passed, N failed[, N skipped]" over both runs, counted from
# meson's testlog.json files. Exit status is non-zero when any test failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$root/build
asan=$root/build-asan
tsan=$root/build-tsan
fuzz=$root/build-fuzz

step() { echo; echo "== $* (at $(date -u +%T), ${SECONDS}s since the start)"; }
die() { echo "test.sh: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

step "setup"
scripts/setup.sh || die "setup failed"
step "models and pictures"
models/fetch.sh || die "models/fetch.sh failed"
tests/fetch_pictures.sh || die "tests/fetch_pictures.sh failed"
step "Kafka broker jars (tflitepublish tests)"
scripts/fetch_kafka.sh || die "scripts/fetch_kafka.sh failed"

# Old logs must not be counted.
trixie_log=$build/trixie-root/build/meson-logs/testlog.json
arm64_logs=("$build/arm64/meson-logs/testlog.json" "$build/arm64/meson-logs/testlog-gst.json"
  "$build/arm64/meson-logs/testlog-sve-arm64-sve-wrap.sh.json"
  "$build/arm64/meson-logs/testlog-a72-arm64-a72-wrap.sh.json")
rm -f "${arm64_logs[@]}"
rm -f "$build/meson-logs/testlog.json" "$build/meson-logs/testlog-gles31min.json" "$asan/meson-logs/testlog.json" "$asan/meson-logs/testlog-gl-postproc.json" "$asan/meson-logs/testlog-gst-asan_wrap.sh.json" "$tsan/meson-logs/testlog.json" "$tsan/meson-logs/testlog-swap.json" "$fuzz/meson-logs/testlog.json" "$trixie_log"

# Both builds' evaluation tests share one pycocotools virtual environment (tests/eval/venv.sh).
export TFL_EVAL_VENV=$build/eval-venv

step "build ($build, debugoptimized)"
scripts/build.sh "$build" || die "build failed"
step "tests"
meson test -C "$build" --print-errorlogs --num-processes 2

# The GL delegate as on a GPU with only OpenGL ES 3.1's minimum limits, in a GLES 3.1
# context of its own (docs/boards.md, "Device profiles"): the API, ops and limits tests,
# two real models and a post-processing one (its shaders compile again for the smaller
# workgroups: most of the stage's time).
step "GL under the GLES 3.1 minimum profile"
meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 --setup gles31min \
  test_gl_api test_gl_ops test_gl_limits gl_limits_split_face_detection_short_range gl_limits_shared_hand_landmark_lite \
  gl_fp16_face_detection_short_range gl_fp32_hand_landmark_lite gl_postproc_fp16_face_detection_short_range

# GStreamer >= 1.24 (analytics metadata, objectdetectionoverlay) in a Debian 13 root with
# GStreamer 1.26: made once by debootstrap and cached in $build/trixie-root (a few minutes
# the first time, seconds after); a mirror that cannot be reached fails with a message.
step "analytics: Debian 13 root, GStreamer 1.26"
scripts/analytics_stage.sh "$build" || echo "test.sh: the analytics stage failed (see above)"

# arm64: cross-built against a Debian 12 arm64 sysroot (mmdebstrap, cached in $build/arm64-sysroot,
# the build in $build/arm64) and tested under qemu-aarch64 -cpu cortex-a76: the unit, runtime,
# loader, decoders, models and single-op (opmodels) suites; the oneDNN tests
# once more on qemu's SVE CPU (docs/boards.md: what it costs).
step "arm64: cross build, tests under qemu"
scripts/arm64_stage.sh "$build" || echo "test.sh: the arm64 stage failed (see above)"

# The sanitizer run covers the unit, loader (bad models), single-op and real-model suites
# (the real models take about 70 s under ASan on 2 cores), the evaluation suite (its
# tools run GL too, about 2 minutes), tflitepublish's unit and MQTT broker suites (about
# 1 minute), tflite-run's files (suite tools, seconds), the GL delegate's own suite (our
# code instrumented, Mesa's llvmpipe not), one model per GL post-processing op, decoders
# and runtime. The concurrency suite runs under ThreadSanitizer below (under ASan it
# takes 5 minutes more); the Kafka test and the publish test through gst-launch stay in
# the optimized run.
step "build ($asan, ASan+UBSan)"
scripts/build.sh "$asan" -Db_sanitize=address,undefined -Db_lundef=false || die "sanitizer build failed"
step "tests under ASan+UBSan"
# intercept_tls_get_addr=0: GCC 12's libasan takes a malloc'd dynamic TLS block that starts
# 16 bytes past a page for a pre-2.25 glibc block, reads ASan's own chunk header as its
# range, and LeakSanitizer's tracer faults on it at exit (README.md, "Sanitizers"; once in
# a few hundred GL test runs: Mesa loads a library with dynamic TLS).
asan_options=abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0
ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_options} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
  meson test -C "$asan" --print-errorlogs --num-processes 2 --suite unit --suite loader --suite opmodels --suite models \
    --suite eval --suite publish --suite publish-mqtt --suite tools --suite gl --suite decoders \
    --suite runtime
# The GL post-processing ops under ASan: one model per op family, fp16 (every model in both
# precisions took 15 minutes here, llvmpipe compiling each model's shaders under load; the
# optimized run keeps them all).
ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_options} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
  meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 --logbase testlog-gl-postproc \
    gl_postproc_fp16_face_detection_short_range gl_ssd_op_fp16_synthetic gl_landmark_op_fp16_hand_landmark_lite \
    gl_queued_outputs_fp16_face_detection_short_range
# The GStreamer suites' C tests in the same build (the elements, the meta library, the
# overlay; GL through Mesa, which is not instrumented while our code is). Plugins are loaded
# in the test process (GStreamer's plugin scanner is not instrumented and cannot load an
# ASan plugin) into a registry of this build's own; tests/lsan.supp drops what fontconfig
# keeps; tests/asan_wrap.sh keeps Mesa's driver mapped so LeakSanitizer still sees what it
# holds. libcheck's per-test limits are stretched (fontconfig's first load alone takes
# seconds under ASan); meson's stay. The log is testlog-gst-asan_wrap.sh.json (meson adds
# the wrapper's name to --logbase). Not here: the Python tests (the interpreter is not
# instrumented), tflite_streams (many pipelines at once, over 10 minutes under ASan) and
# gl_start's cold-start timing (2 minutes under ASan; its stop, changes and failure cases
# run here as gl_start_leaks, under a minute). model_swap_cpu/_gl swap models while frames
# flow (about 10 and 16 s here under ASan).
step "GStreamer suites under ASan+UBSan"
# The registry is made first, leak checks off: scanning every plugin in-process makes GLib
# pass 2048 quarks, and it then abandons its first quark block on purpose (allocated in its
# constructor; the fast unwinder's two frames cannot be told from any other g_malloc). With
# the registry made, the tests load only the plugins they use.
GST_REGISTRY_FORK=no GST_REGISTRY=$asan/gst-registry.bin ASAN_OPTIONS=detect_leaks=0 \
  meson test -C "$asan" --no-rebuild --num-processes 2 --logbase testlog-gst-registry \
    --wrapper "$root/tests/asan_wrap.sh" tflitemeta objects >/dev/null || true
GST_REGISTRY_FORK=no GST_REGISTRY=$asan/gst-registry.bin CK_TIMEOUT_MULTIPLIER=4 \
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0} \
ASAN_OPTIONS=${ASAN_OPTIONS:-$asan_options} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
  meson test -C "$asan" --no-rebuild --print-errorlogs --num-processes 2 --logbase testlog-gst \
    --wrapper "$root/tests/asan_wrap.sh" \
    tflitemeta objects tfliteoverlay tfliteoverlay_gles2 tflitefilter tflitefilter_gles2 tflitefilter_leaks gl_queue \
    gl_start_leaks model_swap_cpu model_swap_gl

# ThreadSanitizer: many interpreters at once (suite concurrency, GL included), the
# kernels on their thread pool (suite unit) and the element's model swaps while frames
# flow (model_swap_cpu/_gl: the plugin in a GStreamer pipeline). Only those executables
# are built, to keep the stage short on 2 cores. tests/tsan.supp says what it drops:
# libc calls made from inside the uninstrumented libraries (XNNPACK, pthreadpool, GLib,
# GStreamer), never an access of our own code; tests/tsan_gst_sync.c, preloaded in
# the swap tests, shows TSan the GLib/GstGL locks our code synchronizes with.
step "build ($tsan, TSan: concurrency and unit suites, model swaps)"
if [ ! -f "$tsan/build.ninja" ]; then
  meson setup --buildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false "$tsan" "$root" \
    || die "TSan configure failed"
fi
ninja -C "$tsan" build.ninja >/dev/null || die "TSan reconfigure failed"  # introspection must be current
# what those suites run: their executables and the libraries a test reads (built here;
# not interpreters such as python3 or scripts in the source tree)
tsan_targets=$(meson introspect "$tsan" --tests | python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if {"concurrency", "unit"} & {s.split(":")[-1] for s in t["suite"]}:
        for arg in t["cmd"]:
            rel = os.path.relpath(os.path.join(build, arg), build)
            if not rel.startswith("..") and (arg == t["cmd"][0] or rel.endswith(".a")):
                print(rel)' "$tsan" | sort -u)
[ -n "$tsan_targets" ] || die "no TSan test targets found"
# shellcheck disable=SC2086  # one target per word
ninja -C "$tsan" $tsan_targets gst/libgsttflite.so tests/test_model_swap tests/libtsan_gst_sync.so \
  || die "TSan build failed"
step "tests under TSan"
TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$root/tests/tsan.supp:exitcode=66} \
  meson test -C "$tsan" --no-rebuild --print-errorlogs --num-processes 2 --suite concurrency --suite unit
# one at a time: 6 s of CPU swaps and 20 s of GL swaps (llvmpipe): 31-43 s here, 85 s with
# cold shader caches (a fresh machine: llvmpipe compiles the programs under TSan first)
TSAN_OPTIONS=${TSAN_OPTIONS:-suppressions=$root/tests/tsan.supp:exitcode=66} \
  meson test -C "$tsan" --no-rebuild --print-errorlogs --num-processes 1 --logbase testlog-swap \
    model_swap_cpu model_swap_gl

# libFuzzer (tests/fuzz/README.md): the three fuzz targets built by clang with ASan+UBSan,
# then the loader and CPU targets fuzz for $TFL_FUZZ_SECONDS (default 60; both at once, one
# per core) from the single-op models and the regression inputs, then fuzz_gl (GL against
# the CPU reference on llvmpipe) for half that from every 8th single-op model and the zoo. Only the targets are built (the rest of the
# tree is not needed to fuzz); a finding fails the test and leaves its input in $fuzz/tests/fuzz.
step "build ($fuzz, clang + libFuzzer + ASan+UBSan: fuzz targets only)"
fuzz_seconds=${TFL_FUZZ_SECONDS:-60}
if [ ! -f "$fuzz/build.ninja" ]; then
  CC=clang-14 meson setup --buildtype=debugoptimized -Dfuzzing=true -Dfuzz_seconds="$fuzz_seconds" \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link "$fuzz" "$root" \
    || die "fuzz build configure failed"
else
  meson configure "$fuzz" -Dfuzz_seconds="$fuzz_seconds" || die "fuzz build configure failed"
fi
ninja -C "$fuzz" tests/fuzz/fuzz_loader tests/fuzz/fuzz_run tests/fuzz/fuzz_gl || die "fuzz build failed"
step "short fuzz runs (${fuzz_seconds} s per target)"
meson test -C "$fuzz" --no-rebuild --print-errorlogs --num-processes 2 --suite fuzz

step "summary"
python3 - "$build/meson-logs/testlog.json" "$build/meson-logs/testlog-gles31min.json" "$asan/meson-logs/testlog.json" \
  "$asan/meson-logs/testlog-gl-postproc.json" \
  "$asan/meson-logs/testlog-gst-asan_wrap.sh.json" "$tsan/meson-logs/testlog.json" \
  "$tsan/meson-logs/testlog-swap.json" "$fuzz/meson-logs/testlog.json" "$trixie_log" "${arm64_logs[@]}" <<'PY'
import json
import sys

passed = failed = skipped = 0
failures = []
for path in sys.argv[1:]:
    run = path.split('/')[-3]    # build, build-asan, build-tsan, build-fuzz, build (the Debian 13 root's), arm64
    try:
        lines = open(path).read().splitlines()
    except OSError:
        print('%s: missing (that run did not happen)' % path)
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t['result']
        if r in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif r == 'SKIP':
            skipped += 1
        else:  # FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS
            failed += 1
            failures.append((run, t['name'], r, t.get('stdout') or '', t.get('stderr') or ''))
# each failure's own last lines here, at the end, where a CI view that keeps only the
# tail of the output still shows why
for run, name, r, out, err in failures:
    print('---- %s: %s (%s), the last lines it printed:' % (run, name, r))
    print('\n'.join((out + err).splitlines()[-40:]))
for run, name, r, _, _ in failures:
    print('failed: %s: %s (%s)' % (run, name, r))
print('%d passed, %d failed%s' % (passed, failed, ', %d skipped' % skipped if skipped else ''))
sys.exit(1 if failed else 0)
PY
