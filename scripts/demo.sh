#!/bin/bash
# demo.sh - the main job: sets up, builds, fetches the models, runs MediaPipe's selfie
# segmentation on skimage's astronaut picture with our runtime, writes the mask and an
# overlay as PNGs, and prints tflite-benchmark for that model.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-$root/build}
out=$build/demo-output

scripts/setup.sh
models/fetch.sh
tests/fetch_pictures.sh
scripts/build.sh "$build"

model=models/cache/selfie_segmentation.tflite
mkdir -p "$out"
echo
"$build/demo/segment_picture" "$model" tests/data/pictures/astronaut.png \
  "$out/astronaut_mask.png" "$out/astronaut_overlay.png" --threads 2
if [ -x "$build/tools/tflite-benchmark" ]; then
  echo
  "$build/tools/tflite-benchmark" "$model" --threads 2 --runs 50
fi
echo
echo "Look at $out/astronaut_mask.png (white = person) and $out/astronaut_overlay.png."
