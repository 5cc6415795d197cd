#!/bin/bash
# hand-landmarks.sh - palm -> hand landmarks: MediaPipe's palm detector, then the 21 hand
# landmarks on each palm's region (turned so the fingers point up, moved towards them,
# square, x2.6), drawn as hand skeletons.
# No picture with a hand ships here (astronaut.png's hand is gloved: no palm is found, the
# picture comes out unmarked); pass one: each hand gets a box ("palm"), its skeleton inside.
# Usage: [MEMORY=system] pipelines/hand-landmarks.sh PICTURE
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
palm=$MODELS/palm_detection_lite.tflite
hand=$NPM/hand_landmark_full.tflite
out=$OUT/$(basename "${in%.*}")-hands$SUFFIX.png
need "$in" "$palm" "$hand"
gst-launch-1.0 -q filesrc location="$in" ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter name=palm model="$palm" fit=letterbox ! \
  tflitefilter name=hand model="$hand" regions-from=palm max-regions=2 ! \
  tfliteoverlay ! $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
