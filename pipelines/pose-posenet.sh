#!/bin/bash
# pose-posenet.sh - PoseNet (MobileNet v1 0.75, 8-bit, 17 keypoints) on astronaut.png.
#
# Shows: the model ends in the custom op PosenetDecoderOp, which our runtime runs on the CPU;
# tflitefilter reports it as a CPU fallback in its "tflite-model" bus message when the rest runs
# on the GL delegate (GL path, the default). tfliteoverlay draws the 17 COCO keypoints and the
# skeleton. MEMORY=system: CPU delegate and software drawing.
# Writes: out/astronaut-posenet.png - dots on her eyes, ears and nose, a line joining the
# shoulders and her right arm (left of the picture) down through the elbow to the wrist at the
# glove; keypoints scored below keypoint-threshold (hips, knees, the other arm) are left out.
# Usage: [MEMORY=system] pipelines/pose-posenet.sh [PICTURE [OUTPUT.png]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
out=${2:-$OUT/astronaut-posenet$SUFFIX.png}
model=$MODELS/posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" threshold=0.2 ! \
  tfliteoverlay line-width=4 keypoint-threshold=0.3 ! \
  $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
