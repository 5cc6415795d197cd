#!/bin/bash
# face-mesh.sh - faces -> face landmarks: MediaPipe's face detector, then the 468-point
# face mesh on each face's region (turned so the eyes are level, square, x1.5), drawn.
# Writes out/astronaut-face-mesh.png: the face boxed ("face 0.92"), the mesh's 468 dots
# over eyes, nose, lips and the face's outline.
# Usage: [MEMORY=system] pipelines/face-mesh.sh [PICTURE]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
det=$NPM/face_detection_short_range.tflite
mesh=$MODELS/face_landmark.tflite
out=$OUT/$(basename "${in%.*}")-face-mesh$SUFFIX.png
need "$in" "$det" "$mesh"
gst-launch-1.0 -q filesrc location="$in" ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter name=det model="$det" ! \
  tflitefilter name=mesh model="$mesh" regions-from=det max-regions=4 ! \
  tfliteoverlay ! $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
