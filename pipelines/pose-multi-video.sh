#!/bin/bash
# pose-multi-video.sh - multi-person pose on a video: person detector -> pose landmarks on
# each person's region -> tracker -> overlay, to an AVI file.
#
# BlazePose's person detector (letterboxed, as MediaPipe feeds it) finds the people; the
# second tflitefilter runs pose_landmark_full once per person on MediaPipe's rotated,
# scaled region (all people of a frame in one batch) and carries each region to the next
# frame from the landmarks (track-regions; the detector pauses while every slot is
# tracked); tflitetracker gives each person a stable id; tfliteoverlay draws boxes with
# "person #id", the skeletons inside them.
# No clip ships here: without VIDEO the input is two astronauts side by side (compositor)
# held for N frames. Writes out/pose-multi.avi and out/pose-multi-frame0.png (two people,
# each with a skeleton from the face to the hands, boxes labelled with their track ids).
# Usage: [MEMORY=system] pipelines/pose-multi-video.sh [VIDEO [FRAMES]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

frames=${2:-10}
det=$MODELS/pose_detection.tflite
lm=$NPM/pose_landmark_full.tflite
out=$OUT/pose-multi$SUFFIX.avi
need "$det" "$lm" "$PICTURES/astronaut.png"
if [ -n "${1:-}" ]; then
  src="filesrc location=\"$1\" ! decodebin ! videoconvert"
else
  two_astronauts "$frames"
fi
eval gst-launch-1.0 -q "$src" ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter name=det model="$det" fit=letterbox ! \
  tflitefilter name=pose model="$lm" regions-from=det max-regions=2 track-regions=true ! \
  tflitetracker min-hits=1 ! tfliteoverlay ! \
  $DOWNLOAD videoconvert ! jpegenc ! avimux ! filesink location="$out" ${srcs:-}
echo "wrote $out"
gst-launch-1.0 -q filesrc location="$out" ! avidemux ! jpegdec ! videoconvert ! \
  pngenc snapshot=true ! filesink location="${out%.avi}-frame0.png"
echo "wrote ${out%.avi}-frame0.png"
