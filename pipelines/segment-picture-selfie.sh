#!/bin/bash
# segment-picture-selfie.sh - MediaPipe selfie segmentation on astronaut.png.
#
# Shows (GL path, the default): a probability mask (one float per pixel, 256x256) computed on
# the GPU from the frame's texture and blended by tfliteoverlay straight from the mask
# texture, its opacity scaled by the probability. MEMORY=system: CPU delegate and software drawing.
# Writes: out/astronaut-selfie.png - the astronaut (hair, face, suit) and the helmet in front
# of her tinted red (the VOC palette's class 1 colour, used for probability masks), the flag,
# wall and shuttle untouched.
# Usage: [MEMORY=system] pipelines/segment-picture-selfie.sh [PICTURE [OUTPUT.png]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
out=${2:-$OUT/astronaut-selfie$SUFFIX.png}
model=$NPM/selfie_segmentation.tflite
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" ! \
  tfliteoverlay mask-alpha=0.6 ! \
  $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
