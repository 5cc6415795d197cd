#!/bin/bash
# segment-picture-deeplab.sh - DeepLab v3 (PASCAL VOC, 21 classes) on astronaut.png.
#
# Shows (GL path, the default): the picture goes to the GPU once (glupload), tflitefilter runs
# DeepLab on the frame's texture with the GL delegate and keeps the argmax mask as a texture,
# tfliteoverlay blends it with the PASCAL VOC palette, and only the finished picture comes
# back (gldownload). MEMORY=system runs the same without GL (CPU delegate, software drawing).
# Writes: out/astronaut-deeplab.png - the astronaut (hair, face, suit) tinted in VOC's
# "person" colour (pink), the wall, shuttle and most of the flag untouched (a few red flag
# stripes at the left edge are labelled person too).
# Usage: [MEMORY=system] pipelines/segment-picture-deeplab.sh [PICTURE [OUTPUT.png]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
out=${2:-$OUT/astronaut-deeplab$SUFFIX.png}
model=$MODELS/deeplabv3_257_mv_gpu.tflite
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" labels="$MODELS/pascal_voc_labels_21.txt" ! \
  tfliteoverlay mask-alpha=0.6 ! \
  $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
