#!/bin/bash
# detect-faces-video.sh - MediaPipe face detection (short range) on a video, to an AVI file.
#
# No clip ships here, so the video is astronaut.png held for N frames (imagefreeze) at 10 fps;
# pass any PNG. Each frame (GL path, the default): glupload, tflitefilter (GL delegate;
# decoder=auto finds MediaPipe's face anchors and weighted NMS), tfliteoverlay draws the box,
# its score and the 6 face keypoints (eyes, ears, nose, mouth) with shaders, then the frame
# comes back to the CPU once for the encoder (x264enc is not installed here: MJPEG with
# jpegenc and avimux from gst-plugins-good). MEMORY=system: CPU delegate and software drawing.
# Writes: out/astronaut-faces.avi (N frames, the face boxed, score above, 6 dots on it) and
# its first frame as out/astronaut-faces-frame0.png, to look at without a player.
# Usage: [MEMORY=system] pipelines/detect-faces-video.sh [PICTURE [FRAMES]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
frames=${2:-10}
out=$OUT/astronaut-faces$SUFFIX.avi
model=$NPM/face_detection_short_range.tflite
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! imagefreeze num-buffers="$frames" ! \
  videoconvert ! video/x-raw,format=RGBA,framerate=10/1 ! $UPLOAD \
  tflitefilter model="$model" threshold=0.5 ! \
  tfliteoverlay ! \
  $DOWNLOAD videoconvert ! jpegenc ! avimux ! filesink location="$out"
echo "wrote $out ($frames frames)"

# Not part of the demo: the first frame as a PNG, for a quick look.
gst-launch-1.0 -q filesrc location="$out" ! avidemux ! jpegdec ! videoconvert ! \
  pngenc snapshot=true ! filesink location="${out%.avi}-frame0.png"
echo "wrote ${out%.avi}-frame0.png"
