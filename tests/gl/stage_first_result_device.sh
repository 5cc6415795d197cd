#!/usr/bin/env bash
# Stages, HERE (the build machine), what scripts/bench_first_result.sh needs on the GPU
# machine (docs/gl-performance.md, "First results on the CPU while the GL programs
# compile"), into AUX (default build-fr/, git-ignored by /build*/):
#   .device/                GStreamer, GL loader, XNNPACK, cairo (../shared/device/stage.sh)
#   AUX/xdebs/              oneDNN and what the plugin links that the GPU machine may lack
#                           (used there only where it lacks them: tests/gl/device_libs.sh)
#   AUX/gst/                release build of this tree's plugin (and the meta library)
#   AUX/bin/gst_first_result  the timer (tests/gst/first_result.c)
#   AUX/m/                  MODELS (default selfie_segmentation deeplabv3_257_mv_gpu)
# Then on the GPU machine, from the project root, carrying .device and AUX:
#     source .device/env.sh && source tests/gl/device_libs.sh build-fr/xdebs &&
#       scripts/bench_first_result.sh --build build-fr --models "build-fr/m/selfie_segmentation.tflite
#       build-fr/m/deeplabv3_257_mv_gpu.tflite"
#   usage: bash tests/gl/stage_first_result_device.sh [AUX]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
A=${1:-build-fr}
MODELS=${MODELS:-"selfie_segmentation deeplabv3_257_mv_gpu"}
DIR=.device bash ../shared/device/stage.sh >/dev/null
rm -rf "$A" && mkdir -p "$A"/gst "$A"/bin "$A"/m "$A"/xdebs
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
(cd "$A"/xdebs && apt-get $o download libdnnl2 libgomp1 libjpeg62-turbo ocl-icd-libopencl1 \
  libmosquitto1 libcjson1 librdkafka1 libsasl2-2 libsasl2-modules-db libdb5.3 liblz4-1 libzstd1 libssl3 >/dev/null)
[ -f build-fr-rel/build.ninja ] || meson setup build-fr-rel --buildtype=release >/dev/null
ninja -C build-fr-rel gst/libgsttflite.so tests/gst_first_result >/dev/null
cp build-fr-rel/gst/libgsttflite.so "$A"/gst/
mkdir -p "$A"/gst-libs/gst/tflitemeta && cp -P build-fr-rel/gst-libs/gst/tflitemeta/libgsttflitemeta-1.0.so* "$A"/gst-libs/gst/tflitemeta/
cp build-fr-rel/tests/gst_first_result "$A"/bin/
for m in $MODELS; do
  cp -t "$A"/m/ "$(find models/cache ../shared/models -maxdepth 1 -name "$m.tflite" -print -quit)" 2>/dev/null ||
    { echo "no $m.tflite in models/cache or ../shared/models" >&2; exit 1; }
done
du -sh .device "$A"
