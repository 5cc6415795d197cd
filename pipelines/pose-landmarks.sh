#!/bin/bash
# pose-landmarks.sh - MediaPipe pose landmarks (BlazePose full, 33 points) on astronaut.png.
#
# Shows: the landmark model run on the whole picture, letterboxed to its 256x256 input (in
# MediaPipe the person detector would crop first); the 33 landmarks come back in frame
# pixels through the letterbox, each with its visibility, and tfliteoverlay draws the
# visible ones and BlazePose's skeleton. GL path by default; MEMORY=system: CPU delegate and software drawing.
# Writes: out/astronaut-landmarks.png - the face landmarks (eyes, ears, mouth) right on her
# face, shoulders at the suit's collar ring, her right arm (left of the picture) down to the
# hand, and the hips placed too high, on her chest: the picture shows no hips, and without
# MediaPipe's detector crop the model squeezes a whole body into it.
# Usage: [MEMORY=system] pipelines/pose-landmarks.sh [PICTURE [OUTPUT.png]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
out=${2:-$OUT/astronaut-landmarks$SUFFIX.png}
model=$NPM/pose_landmark_full.tflite
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" fit=letterbox ! \
  tfliteoverlay line-width=4 keypoint-threshold=0.5 ! \
  $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
