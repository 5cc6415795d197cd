#!/usr/bin/env bash
# Stages, HERE (the build machine), what tests/gl/bench_postproc_device.sh needs on the GPU
# machine: post-processing on the GPU (docs/gl-performance.md, "Post-processing on the GPU"),
# before and after, into AUX (default build-pp/, git-ignored by /build*/):
#   .device/               GStreamer, GL loader, XNNPACK, cairo (../shared/device/stage.sh)
#   AUX/xdebs/             oneDNN, MQTT, Kafka and what they need, used on the GPU machine only
#                          where it lacks them (tests/gl/device_libs.sh)
#   AUX/after/{gst,bin}    release build of this tree: the plugin (libgsttflite.so and the meta
#                          library beside it, found through $ORIGIN) and gl_bench
#   AUX/before/{gst,bin}   the same of BEFORE (default 947438e: main before this work, all
#                          post-processing on the CPU)
#   AUX/m/                 MODELS (default deeplabv3_257_mv_gpu,
#                          coco_ssd_mobilenet_v1_1.0_quant_2018_06_29, selfie_segmentation)
# Then on the GPU machine, carrying .device and AUX:
#     source .device/env.sh && bash tests/gl/bench_postproc_device.sh build-pp
#   usage: bash tests/gl/stage_postproc_device.sh [AUX]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
A=${1:-build-pp}
BEFORE=${BEFORE:-947438e}
DIR=.device bash ../shared/device/stage.sh >/dev/null
mkdir -p "$A"/m "$A"/xdebs
# what the plugin links that the machine may lack, added only where it does (device_libs.sh)
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
(cd "$A"/xdebs && rm -f ./*.deb && apt-get $o download libdnnl2 libgomp1 libjpeg62-turbo ocl-icd-libopencl1 \
  libmosquitto1 libcjson1 librdkafka1 libsasl2-2 libsasl2-modules-db libdb5.3 liblz4-1 libzstd1 libssl3 >/dev/null)
# release builds: TREE OUT
build() {
  [ -f "$1/build-pp-rel/build.ninja" ] || (cd "$1" && meson setup build-pp-rel --buildtype=release >/dev/null)
  ninja -C "$1/build-pp-rel" gst/libgsttflite.so tests/gl/gl_bench >/dev/null
  rm -rf "$2" && mkdir -p "$2/gst" "$2/bin"
  cp "$1"/build-pp-rel/gst/libgsttflite.so "$2/gst/"
  # the meta library where the plugin's $ORIGIN-relative RPATH finds it: beside it in trees
  # before it moved to gst-libs/gst/tflitemeta, there after
  for d in gst gst-libs/gst/tflitemeta; do
    ls "$1/build-pp-rel/$d"/libgsttflitemeta-1.0.so* >/dev/null 2>&1 || continue
    mkdir -p "$2/$d" && cp -P "$1/build-pp-rel/$d"/libgsttflitemeta-1.0.so* "$2/$d/"
  done
  cp "$1/build-pp-rel/tests/gl/gl_bench" "$2/bin/"
}
build "$root" "$A/after"
b=/tmp/pp-before-$BEFORE
if [ ! -f "$b/meson.build" ]; then
  rm -rf "$b" && mkdir -p "$b"
  git archive "$BEFORE" | tar -x -C "$b"
fi
build "$b" "$A/before"
MODELS=${MODELS:-"deeplabv3_257_mv_gpu coco_ssd_mobilenet_v1_1.0_quant_2018_06_29 selfie_segmentation"}
for m in $MODELS; do
  for d in models/cache ../shared/models; do
    if [ -f "$d/$m.tflite" ]; then cp "$d/$m.tflite" "$A"/m/; break; fi
  done
  [ -f "$A/m/$m.tflite" ] || { echo "no $m.tflite in models/cache or ../shared/models" >&2; exit 1; }
done
du -sh .device "$A"
