#!/bin/bash
# demo.sh - the main job: installs what is missing, builds, fetches the models and pictures,
# then runs our GStreamer elements on skimage's astronaut.png, headless on GL, and writes
# pictures to look at into build/demo-output/:
#
#   astronaut-selfie.png      MediaPipe selfie segmentation: the person tinted red
#   astronaut-deeplab.png     DeepLab v3 (PASCAL VOC): pixels labelled "person" tinted pink
#   astronaut-faces.png       MediaPipe face detection: box, score and 6 face keypoints
#   astronaut-landmarks.png   MediaPipe pose: the detector, then landmarks on its region
#   astronaut-posenet.png     PoseNet: 17 keypoints and skeleton
#
# Every picture is one pipeline (run_pipeline below): the PNG is decoded, goes to the GPU once
# (glupload), tflitefilter runs the model on the frame's texture with our GL delegate,
# tfliteoverlay draws the results with shaders, and only the finished picture comes back
# (gldownload) to be encoded. GL is headless (GST_GL_WINDOW=egl-device; Mesa's llvmpipe when
# there is no GPU). The MediaPipe models come from npm (models/fetch.sh); DeepLab and PoseNet
# from ../shared/models (TFL_SHARED_MODELS overrides), skipped with a note when absent. Runs from any directory; a second run rebuilds nothing and
# rewrites the pictures. BUILD_DIR overrides the build folder (default <repo>/build).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-$root/build}
out=$build/demo-output

scripts/setup.sh
scripts/build.sh "$build"
models/fetch.sh
tests/fetch_pictures.sh

# --- models that are not on npm ----------------------------------------------------------
# DeepLab, its labels and PoseNet sit in ../shared/models beside every checkout (this
# workplace reaches no other download site); a picture whose model is absent is skipped.
shared=${TFL_SHARED_MODELS:-$root/../shared/models}
cache=$root/models/cache
extras=(
  "deeplabv3_257_mv_gpu.tflite 68a539782c2c6a72f8aac3724600124a85ed977162b44e84cbae5db717c933c6"
  "pascal_voc_labels_21.txt d9efa78274f1799ddbcab1f87263e19dae338c1697de47a5b270c9526c45d364"
  "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite db1b5e8d7d6a5030bf1880346b81a52ac3a95682db8bff5d5d7b2f97712c93e2"
  "pose_detection.tflite a63c614bef30d35947f13be361820b1e4e3bec9cfeebf4d11216a18373108e85"
)

sha_is() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# extra NAME - prints the path of the verified shared copy of NAME, or nothing (with a note).
extra() {
  local entry name sum
  for entry in "${extras[@]}"; do
    read -r name sum <<<"$entry"
    [ "$name" = "$1" ] || continue
    if sha_is "$shared/$name" "$sum"; then echo "$shared/$name"; return; fi
    echo "demo.sh: $name not found (or its sha256 differs) in $shared" >&2
    return
  done
}

# --- the pipelines ------------------------------------------------------------------------
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
BUILD_DIR=$build OUT=$out
source pipelines/env.sh   # sets GST_PLUGIN_PATH; stops if the plugin is not built
picture=$root/tests/data/pictures/astronaut.png
written=()
skipped=()

# run_pipeline OUTPUT.png FILTER_PROP... -- OVERLAY_PROP... - one picture; prints where the
# model ran, from tflitefilter's "tflite-model" bus message.
run_pipeline() {
  local png=$out/$1 filter=() overlay=() log where
  shift
  while [ "$1" != -- ]; do filter+=("$1"); shift; done
  shift
  overlay=("$@")
  log=$(gst-launch-1.0 -m \
    filesrc location="$picture" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! \
    glupload ! tflitefilter "${filter[@]}" ! tfliteoverlay "${overlay[@]}" ! gldownload ! \
    videoconvert ! pngenc ! filesink location="$png" 2>&1) || {
    echo "$log" >&2; echo "demo.sh: the pipeline for $(basename "$png") failed" >&2; exit 1; }
  where=$(echo "$log" | sed -n 's/.*tflite-model, .*delegate=(string)\([a-z]*\), gl-nodes=(int)\([0-9]*\), cpu-nodes=(int)\([0-9]*\).*/\1 delegate: \2 nodes on GL, \3 on CPU/p' | head -n 1)
  printf '  %-26s %s\n' "$(basename "$png")" "$where"
  written+=("$png")
}

mkdir -p "$out"
echo
echo "Pipelines on $(basename "$picture") (filesrc ! pngdec ! videoconvert ! glupload ! tflitefilter ! tfliteoverlay ! gldownload ! videoconvert ! pngenc ! filesink):"

run_pipeline astronaut-selfie.png model="$cache/selfie_segmentation.tflite" -- mask-alpha=0.6

deeplab=$(extra deeplabv3_257_mv_gpu.tflite)
labels=$(extra pascal_voc_labels_21.txt)
if [ -n "$deeplab" ]; then
  run_pipeline astronaut-deeplab.png model="$deeplab" ${labels:+"labels=$labels"} -- mask-alpha=0.7
else
  skipped+=("astronaut-deeplab.png (no DeepLab model)"); rm -f "$out/astronaut-deeplab.png"
fi

run_pipeline astronaut-faces.png model="$cache/face_detection_short_range.tflite" threshold=0.5 -- \
  line-width=3

# As MediaPipe runs it: the person detector finds the body, the landmark model runs on that
# region (rotated, square, scaled: regions-from), results mapped back to the picture.
posedet=$(extra pose_detection.tflite)
if [ -n "$posedet" ]; then
  run_pipeline astronaut-landmarks.png name=det model="$posedet" fit=letterbox ! \
    tflitefilter model="$cache/pose_landmark_full.tflite" regions-from=det max-regions=1 -- \
    line-width=4 keypoint-threshold=0.5
else
  skipped+=("astronaut-landmarks.png (no pose detector)"); rm -f "$out/astronaut-landmarks.png"
fi

posenet=$(extra posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite)
if [ -n "$posenet" ]; then
  run_pipeline astronaut-posenet.png model="$posenet" threshold=0.2 -- \
    line-width=4 keypoint-threshold=0.3
else
  skipped+=("astronaut-posenet.png (no PoseNet model)"); rm -f "$out/astronaut-posenet.png"
fi

# --- the runtime alone ---------------------------------------------------------------------
echo
echo "tflite-benchmark, selfie segmentation on the CPU delegate (2 threads):"
"$build/tools/tflite-benchmark" "$cache/selfie_segmentation.tflite" --threads 2 --runs 20 |
  grep -E '^(delegate|first inference|runs):' | sed 's/^/  /'

echo
echo "Pictures to look at, in $out:"
for f in "${written[@]}"; do echo "  $f"; done
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "  skipped: $s"; done
