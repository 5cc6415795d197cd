#!/bin/bash
# arm64_stage.sh BUILD_DIR - the arm64 build, tested: cross-compiles the project for arm64
# (Debian 12's aarch64-linux-gnu-gcc against a Debian 12 arm64 sysroot) and runs the CPU
# test suites under qemu-aarch64 with a Cortex-A76 (the cores of a Raspberry Pi 5 and an
# RK3588), through meson's exe_wrapper. docs/boards.md says what runs and what it costs.
#
# Cached in BUILD_DIR: the sysroot in arm64-sysroot (mmdebstrap --variant=extract, about
# 30 s; a stamp holds the package list it was made with), the cross build in arm64. Only
# the executables the chosen tests run are built. Installs its host packages (mmdebstrap,
# qemu-user, the cross compiler) with apt when missing; needs Debian's package mirror for a
# fresh sysroot and says so when it cannot be reached.
#
# The tests (chosen below) run under `qemu-aarch64 -cpu cortex-a76` (log:
# BUILD_DIR/arm64/meson-logs/testlog.json), then the oneDNN tests once more on qemu's `max`
# CPU, which has 512-bit SVE (testlog-sve-arm64-sve-wrap.sh.json: meson adds the wrapper's
# name): the fast path must keep its convs off oneDNN's unchecked SVE code there.
set -euo pipefail

build=$(realpath -m "${1:?usage: arm64_stage.sh BUILD_DIR}")
src=$(cd "$(dirname "$0")/.." && pwd)
sysroot=$build/arm64-sysroot
cross=$build/arm64
stamp=$sysroot/.gst-tflite-ready
cpu=cortex-a76

fail() { echo "arm64_stage: $*" >&2; exit 1; }

# host tools, installed when missing (as scripts/setup.sh does)
host_packages=(mmdebstrap qemu-user gcc-aarch64-linux-gnu)
missing=()
for p in "${host_packages[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "arm64_stage: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update >/dev/null || fail "apt-get update failed: is Debian's package mirror reachable?"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "installing ${missing[*]} failed"
fi

# What the cross build links and the tests load at run time (GStreamer's plugins for the
# element tests: filesrc, pngdec, videoconvert, videotestsrc, imagefreeze). --variant=extract
# unpacks these and their dependencies without running anything of arm64.
packages="libc6-dev libgcc-12-dev libxnnpack-dev libpthreadpool-dev libdnnl-dev libpng-dev
  zlib1g-dev libegl-dev libgles-dev libjson-c-dev libjpeg62-turbo-dev libgstreamer1.0-dev
  libgstreamer-plugins-base1.0-dev libcairo2-dev libpango1.0-dev libfontconfig-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good"
packages=$(echo $packages)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$packages" ]; then
  t0=$(date +%s)
  rm -rf "$sysroot"
  mkdir -p "$build"
  echo "arm64_stage: making a Debian 12 arm64 sysroot in $sysroot"
  if ! mmdebstrap --variant=extract --architectures=arm64 --include="${packages// /,}" bookworm "$sysroot" \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian-security bookworm-security main" >"$build/arm64-mmdebstrap.log" 2>&1; then
    tail -5 "$build/arm64-mmdebstrap.log" >&2
    rm -rf "$sysroot"
    fail "mmdebstrap failed: is Debian's package mirror reachable? (log: $build/arm64-mmdebstrap.log)"
  fi
  # absolute symlinks (libfoo.so -> /lib/...) would point into this machine's own root
  # at link time: made relative to where they stand (not /dev's, into /proc)
  find "$sysroot" -path "$sysroot/dev" -prune -o -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$(readlink "$link")")" "$link"
  done
  echo "$packages" >"$stamp"
  echo "arm64_stage: sysroot ready in $(( $(date +%s) - t0 )) s"
fi

# meson 1.0 spells the pkg-config entry `pkgconfig`; sys_root makes pkg-config prefix the
# sysroot to the paths of its .pc files
ccache=""
command -v ccache >/dev/null && ccache="'ccache', "
cat >"$build/arm64-cross.ini.new" <<EOF
[binaries]
c = [${ccache}'aarch64-linux-gnu-gcc', '--sysroot=$sysroot']
ar = 'aarch64-linux-gnu-ar'
strip = 'aarch64-linux-gnu-strip'
pkgconfig = 'pkg-config'
exe_wrapper = ['qemu-aarch64', '-cpu', '$cpu', '-L', '$sysroot']

[properties]
sys_root = '$sysroot'
pkg_config_libdir = ['$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig', '$sysroot/usr/share/pkgconfig']

[host_machine]
system = 'linux'
cpu_family = 'aarch64'
cpu = '$cpu'
endian = 'little'
EOF
# rewritten only when it changed: a new file makes meson reconfigure
cmp -s "$build/arm64-cross.ini.new" "$build/arm64-cross.ini" 2>/dev/null \
  && rm "$build/arm64-cross.ini.new" || mv "$build/arm64-cross.ini.new" "$build/arm64-cross.ini"

if [ ! -f "$cross/build.ninja" ]; then
  meson setup --buildtype=debugoptimized -Dintrospection=disabled --cross-file "$build/arm64-cross.ini" \
    "$cross" "$src" >"$build/arm64-setup.log" 2>&1 || { tail -20 "$build/arm64-setup.log" >&2; fail "meson setup failed"; }
fi
ninja -C "$cross" build.ninja >/dev/null || fail "reconfigure failed"

# The tests: the unit, runtime, loader, decoders, models and opmodels (873 single-op models)
# suites, and the elements' tests on the CPU path (below). Only their executables, the
# libraries a test reads and the plugin are built (as the TSan stage of scripts/test.sh
# picks its targets).
suites="unit runtime loader decoders models opmodels"
element_tests="tflitefilter objects"
selection=$(meson introspect "$cross" --tests | python3 -c '
import json, os, sys
build, want, elements = sys.argv[1], set(sys.argv[2].split()), set(sys.argv[3].split())
names, targets, left = [], set(), []
for t in json.load(sys.stdin):
    if want & {s.split(":")[-1] for s in t["suite"]} or t["name"] in elements:
        # a script from the source tree running built arm64 tools would need binfmt_misc
        if os.path.relpath(t["cmd"][0], build).startswith(".."):
            left.append(t["name"])
            continue
        if t["name"] not in elements:
            names.append(t["name"])
        for arg in t["cmd"]:
            rel = os.path.relpath(os.path.join(build, arg), build)
            if not rel.startswith("..") and (arg == t["cmd"][0] or rel.endswith(".a")):
                targets.add(rel)
print(" ".join(sorted(targets)))
print(" ".join(names))
print(" ".join(left))' "$cross" "$suites" "$element_tests")
targets=$(echo "$selection" | sed -n 1p)
tests=$(echo "$selection" | sed -n 2p)
left=$(echo "$selection" | sed -n 3p)
[ -z "$left" ] || echo "arm64_stage: not run (scripts that would exec arm64 tools): $left"
[ -n "$targets" ] || fail "no arm64 tests found"
t0=$(date +%s)
# shellcheck disable=SC2086  # one target per word
ninja -C "$cross" $targets gst/libgsttflite.so >"$build/arm64-build.log" 2>&1 \
  || { grep -A5 FAILED "$build/arm64-build.log" | head -30 >&2; fail "cross build failed (log: $build/arm64-build.log)"; }
echo "arm64_stage: $(echo "$targets" | wc -w) targets built in $(( $(date +%s) - t0 )) s"

rm -f "$cross/meson-logs/testlog.json" "$cross/meson-logs/testlog-gst.json" \
  "$cross/meson-logs/testlog-sve-arm64-sve-wrap.sh.json"
t0=$(date +%s)
# TFL_EXPECT_DOTPROD: a Cortex-A76 has the dot products; test_q8_neon fails if the
# detection missed them (the 8-bit convs' udot path would go untested)
# shellcheck disable=SC2086  # one test name per word
TFL_EXPECT_DOTPROD=1 meson test -C "$cross" --no-rebuild --print-errorlogs --num-processes 2 $tests || true
echo "arm64_stage: $(echo "$tests" | wc -w) tests under qemu in $(( $(date +%s) - t0 )) s"

# The elements on the CPU path: tflitefilter's CPU cases and the objects tests but the one
# that needs GL (no Mesa in the sysroot; test_yolo needs plugins-bad's rawvideoparse). The
# registry is made in the test process (GST_REGISTRY_FORK=no): qemu-user cannot exec
# GStreamer's arm64 plugin scanner. Log: testlog-gst.json. GST_CHECKS names the checks: one
# renamed in the tests must be renamed here too, or it drops out (the log's "Checks: N"
# lines say how many ran: 5 and 9).
t0=$(date +%s)
# shellcheck disable=SC2086  # one test name per word
GST_REGISTRY_FORK=no GST_REGISTRY=$cross/gst-registry.bin \
GST_CHECKS=test_caps_sysmem,test_classification,test_segmentation,test_landmarks,test_detection,\
test_label_count_warning,test_label_count_fits,test_no_decoder_warning,test_known_family_named_class,\
test_pose_two_people,test_pose_partly_outside,test_track_regions_pause_detector,test_tracker_video,\
test_overlay_children_in_parent \
  meson test -C "$cross" --no-rebuild --print-errorlogs --num-processes 2 --logbase testlog-gst $element_tests || true
echo "arm64_stage: the element tests (14 checks) under qemu in $(( $(date +%s) - t0 )) s"

# A Cortex-A72 (Raspberry Pi 4; the A53 of an i.MX 8M Plus alike) has no dot products:
# the 8-bit NEON convs must take their int16 path there (qemu stops a udot with SIGILL):
# the kernels' test and the 8-bit rounding test (fast mode against TFLite's formula) once
# more on that CPU, log testlog-a72-arm64-a72-wrap.sh.json. A few seconds.
cat >"$build/arm64-a72-wrap.sh" <<'EOF'
#!/bin/sh
# "$@": meson's exe_wrapper (qemu-aarch64 -cpu cortex-a76 -L ROOT), then the test
qemu=$1
shift 3
exec "$qemu" -cpu cortex-a72 "$@"
EOF
chmod +x "$build/arm64-a72-wrap.sh"
rm -f "$cross/meson-logs/testlog-a72-arm64-a72-wrap.sh.json"
meson test -C "$cross" --no-rebuild --print-errorlogs --logbase testlog-a72 --wrapper "$build/arm64-a72-wrap.sh" \
  test_q8_neon test_q8_rounding || true

# qemu's max CPU (512-bit SVE) for the oneDNN tests: a wrapper in front of exe_wrapper
# swaps its `-cpu cortex-a76`
cat >"$build/arm64-sve-wrap.sh" <<'EOF'
#!/bin/sh
# "$@": meson's exe_wrapper (qemu-aarch64 -cpu cortex-a76 -L ROOT), then the test
qemu=$1
shift 3
TFL_EXPECT_SVE=1 exec "$qemu" -cpu max,sve512=on "$@"
EOF
chmod +x "$build/arm64-sve-wrap.sh"
onednn_tests=$(meson introspect "$cross" --tests | python3 -c '
import json, sys
print(" ".join(t["name"] for t in json.load(sys.stdin) if t["name"].startswith("test_onednn")))')
[ -n "$onednn_tests" ] || fail "the arm64 build has no oneDNN tests (is libdnnl-dev in the sysroot?)"
# shellcheck disable=SC2086  # one test name per word
meson test -C "$cross" --no-rebuild --print-errorlogs --logbase testlog-sve --wrapper "$build/arm64-sve-wrap.sh" \
  $onednn_tests || true
