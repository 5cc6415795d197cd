#!/bin/bash
# setup.sh - installs the Debian 12 packages the project needs, only those missing.
#
# Checks each package with dpkg-query; runs `apt-get update` (once) and `apt-get install -y`
# only when something is missing, so a second run does nothing and needs no network.
set -euo pipefail

packages=(
  # build
  meson ninja-build pkg-config gcc python3
  # the fuzz build (tests/fuzz): clang with libFuzzer and its sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # runtime: XNNPACK (no pkg-config file; pthreadpool must be named), flatc for test models
  libxnnpack-dev libpthreadpool-dev flatbuffers-compiler libpng-dev zlib1g-dev
  # CPU fast path: oneDNN's JIT convolutions (fp32, bf16, 8-bit VNNI)
  libdnnl-dev
  # evaluation tools: JPEG pictures, COCO's JSON files; their tests' pycocotools venv (and
  # scripts/bench_peers.sh's peer runtimes)
  libjpeg62-turbo-dev libjson-c-dev python3-venv
  # GL delegate (Mesa's llvmpipe without a GPU)
  libegl-dev libgles-dev libgl1-mesa-dri libegl-mesa0
  # its EGL fallback on a DRM render node (the GBM platform: boards whose EGL has no
  # device or surfaceless platform)
  libgbm-dev
  # GStreamer elements
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-gl
  libcairo2-dev libpango1.0-dev
  # the meta library's introspection data, the Python probe example and its test (python3-gi
  # with GStreamer's typelibs only), the Debian 13 analytics stage (debootstrap)
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-gi debootstrap
  # raw tensors in Python: numpy, and GStreamer's overrides (a buffer map as a memoryview)
  python3-numpy python3-gst-1.0
  # models/fetch.sh runs `npm pack`
  nodejs npm
  # tflitepublish: its client libraries, and for its tests a Mosquitto broker and clients,
  # openssl (test CA), the JSON Schema check, and Maven + Java 17 for the Kafka broker
  libmosquitto-dev librdkafka-dev mosquitto mosquitto-clients openssl python3-jsonschema
  maven openjdk-17-jre-headless
)

# A node from elsewhere (NodeSource's nodejs ships npm and conflicts with Debian's npm)
# satisfies nodejs and npm when its commands are there.
command_for() {
  case "$1" in
  nodejs) echo node ;;
  npm) echo npm ;;
  esac
}

missing=()
for p in "${packages[@]}"; do
  cmd=$(command_for "$p")
  if [ -n "$cmd" ] && command -v "$cmd" >/dev/null; then continue; fi
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all ${#packages[@]} packages installed" >&2
  exit 0
fi

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "setup.sh: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
