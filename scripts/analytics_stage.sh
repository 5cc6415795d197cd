#!/bin/bash
# analytics_stage.sh BUILD_DIR - the GStreamer >= 1.24 part, tested for real: builds the
# plugin against Debian 13's GStreamer 1.26 in a Debian 13 root (debootstrap) and runs the
# analytics suite there (tests/gst/test_analytics.c): our objects in GstAnalyticsRelationMeta
# (detections, classes, tracking, segmentation masks from the CPU and the GL path, GL on
# Mesa's llvmpipe), GStreamer's own objectdetectionoverlay drawing our detections,
# tfliteoverlay drawing analytics results made by another element, the trained YOLO
# models' oriented boxes (oriented mtd) and per-box instance masks (segmentation mtds).
#
# The root is cached in BUILD_DIR/trixie-root (a stamp file marks it complete), so a rerun
# only rebuilds and tests. A fresh root takes a few minutes (debootstrap, then about 150
# packages). Needs root (debootstrap, chroot, mount) and Debian's package mirror; when the
# mirror cannot be reached it stops with a message saying so.
set -euo pipefail

build=${1:?usage: analytics_stage.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
rootfs=$build/trixie-root
stamp=$rootfs/.gst-tflite-ready
packages="meson ninja-build gcc libc6-dev pkg-config python3 libgstreamer1.0-dev
  libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev gstreamer1.0-plugins-base gstreamer1.0-gl
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-tools libxnnpack-dev
  libpthreadpool-dev libpng-dev libegl-dev libgles-dev libcairo2-dev libpango1.0-dev
  libdnnl-dev libjson-c-dev libjpeg-dev libfontconfig-dev"

fail() { echo "analytics_stage: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (scripts/setup.sh installs it)"

packages=$(echo $packages) # one line for sh -c
# the stamp holds the package list it was made with: a changed list installs again
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$packages" ]; then
  t0=$(date +%s)
  if [ ! -f "$rootfs/.debootstrap-done" ]; then
    rm -rf "$rootfs"
    mkdir -p "$build"
    echo "analytics_stage: making a Debian 13 (trixie) root in $rootfs"
    if ! debootstrap --variant=minbase trixie "$rootfs" >"$build/trixie-debootstrap.log" 2>&1; then
      tail -5 "$build/trixie-debootstrap.log" >&2
      rm -rf "$rootfs"
      fail "debootstrap failed: is Debian's package mirror reachable? (log: $build/trixie-debootstrap.log)"
    fi
    touch "$rootfs/.debootstrap-done"
  fi
  echo "analytics_stage: installing GStreamer 1.26 and the build tools in the root"
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true' EXIT
  # shellcheck disable=SC2086
  if ! chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive sh -c \
      "apt-get update && apt-get install -y --no-install-recommends $packages" >"$build/trixie-apt.log" 2>&1; then
    tail -5 "$build/trixie-apt.log" >&2
    fail "installing GStreamer 1.26 in the root failed: is Debian's package mirror reachable? (log: $build/trixie-apt.log)"
  fi
  umount "$rootfs/proc"
  trap - EXIT
  echo "$packages" >"$stamp"
  echo "analytics_stage: root ready in $(( $(date +%s) - t0 )) s"
fi

# the source tree read-only at /src (models, pictures and shared models beside it), the
# build inside the root
mkdir -p "$rootfs/src" "$rootfs/shared" "$rootfs/proc"
mount --bind "$src" "$rootfs/src"
mount -o remount,bind,ro "$rootfs/src"
shared=$src/../shared
# read-only too: a run killed before its cleanup leaves these mounts, and removing the
# build tree then must not reach into the shared folder
[ -d "$shared" ] && mount --bind "$shared" "$rootfs/shared" && mount -o remount,bind,ro "$rootfs/shared"
mount -t proc proc "$rootfs/proc"
cleanup() {
  umount "$rootfs/proc" 2>/dev/null || true
  umount "$rootfs/shared" 2>/dev/null || true
  umount "$rootfs/src" 2>/dev/null || true
}
trap cleanup EXIT

chroot "$rootfs" sh -c '
  set -e
  echo "GStreamer $(pkg-config --modversion gstreamer-1.0), analytics $(pkg-config --modversion gstreamer-analytics-1.0)"
  [ -f /build/build.ninja ] || meson setup --buildtype=debugoptimized -Dintrospection=disabled /build /src >/dev/null
  ninja -C /build gst/libgsttflite.so tests/test_analytics >/dev/null
  meson test -C /build --no-rebuild --print-errorlogs --suite analytics
'
