#!/usr/bin/env bash
# Stages, HERE (the build machine), what tests/gl/bench_device.sh needs on the GPU machine,
# into AUX (default build-aux/, git-ignored by /build*/), kept under the 64 MiB a device call
# carries together with the tracked tree (about 4 MiB):
#   AUX/bin/gl_bench          release build of this tree
#   AUX/bin/gl_bench_before   release build of BEFORE (default: main as merged into this branch
#                             first, 5c707b5) - the "before" column
#   AUX/debs/                 glvnd EGL/GLES + Vulkan loaders, XNNPACK, libpng (Debian amd64)
#   AUX/whl/                  ai-edge-litert 2.3.0 (the native TensorFlow Lite GPU accelerator)
#                             and the dependencies the GPU machine's Python 3.12 lacks
#   AUX/m/                    the models (MODELS, default: the issue's three goal models and
#                             the smaller MediaPipe ones; ~45 MiB with the wheels)
#   AUX/pictures/             the golden cases' pictures (tests/data/pictures)
#   usage: bash tests/gl/stage_device.sh [AUX]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
A=${1:-build-aux}
BEFORE=${BEFORE:-5c707b5}
MODELS=${MODELS:-"selfie_segmentation object_detection_ssd_mobilenetv2_oidv4_fp16 deeplabv3_257_mv_gpu
  selfie_segmentation_landscape face_detection_short_range face_detection_full_range palm_detection_lite
  hand_landmark_lite face_landmark mobilenet_v1_0.25_224 pose_detection"}
DIRS=${DIRS:-models/cache:../shared/models}
mkdir -p "$A"/bin "$A"/debs "$A"/xdebs "$A"/whl "$A"/m "$A"/pictures
rm -f "$A"/m/*.tflite

# this tree, release
[ -f build-rel/build.ninja ] || meson setup build-rel --buildtype=release >/dev/null
ninja -C build-rel tests/gl/gl_bench >/dev/null
cp build-rel/tests/gl/gl_bench "$A"/bin/gl_bench

# the tree before, release (its gl_bench prints the older TABLE line)
b=/tmp/gl-before-$BEFORE
if [ ! -x "$b/build/tests/gl/gl_bench" ]; then
  rm -rf "$b" && mkdir -p "$b"
  git archive "$BEFORE" | tar -x -C "$b"
  (cd "$b" && meson setup build --buildtype=release >/dev/null && ninja -C build tests/gl/gl_bench >/dev/null)
fi
cp "$b/build/tests/gl/gl_bench" "$A"/bin/gl_bench_before

# loaders and libraries the GPU machine lacks (Debian 12, amd64)
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
mkdir -p /tmp/amd64/partial
apt-get $o update >/dev/null
(cd "$A"/debs && rm -f ./*.deb && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 \
  libxnnpack0 libpthreadpool0 libcpuinfo0 libpng16-16 >/dev/null)
# what the machine may lack, added only where it does (tests/gl/device_libs.sh)
(cd "$A"/xdebs && rm -f ./*.deb && apt-get $o download libdnnl2 libgomp1 libjpeg62-turbo ocl-icd-libopencl1 >/dev/null)

# the native TensorFlow Lite and what its wheel requires beyond numpy (there: 2.5)
pipdl() {
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform any -d "$A"/whl "$@"
}
ls "$A"/whl/ai_edge_litert-2.3.0-*.whl >/dev/null 2>&1 || pipdl ai-edge-litert==2.3.0
ls "$A"/whl/flatbuffers-*.whl >/dev/null 2>&1 || pipdl flatbuffers backports.strenum tqdm ml_dtypes protobuf typing_extensions

for m in $MODELS; do
  for d in ${DIRS//:/ }; do
    if [ -f "$d/$m.tflite" ]; then cp "$d/$m.tflite" "$A"/m/; break; fi
  done
  [ -f "$A/m/$m.tflite" ] || { echo "stage_device.sh: $m not found in $DIRS" >&2; exit 1; }
done
cp tests/data/pictures/*.png "$A"/pictures/
du -sh "$A"
