#!/bin/bash
# detect-ssd-video.sh - SSD MobileNet v2 (Open Images, 24 classes) on a video, to an AVI file.
#
# Shows: the standard SSD detector, 1917 anchors at 300x300, found by decoder=auto (SSD
# MobileNet anchors, box coder and NMS in tflitefilter), on a video made of astronaut.png held
# for N frames (imagefreeze, 10 fps; no clip ships here). GL path by default (GL delegate,
# boxes and labels drawn with shaders); MEMORY=system: CPU delegate and software drawing. MJPEG in AVI
# (x264enc is not installed here).
# Writes: out/astronaut-ssd.avi - a box labelled "Person" with its score around the astronaut
# (the real TensorFlow Lite scores it 0.58), and its first frame out/astronaut-ssd-frame0.png.
# Usage: [MEMORY=system] pipelines/detect-ssd-video.sh [PICTURE [FRAMES]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/astronaut.png}
frames=${2:-10}
out=$OUT/astronaut-ssd$SUFFIX.avi
model=$MODELS/object_detection_ssd_mobilenetv2_oidv4_fp16.tflite
labels=$MODELS/object_detection_oidv4_labelmap.txt
need "$in" "$model" "$labels"

gst-launch-1.0 -q \
  filesrc location="$in" ! pngdec ! imagefreeze num-buffers="$frames" ! \
  videoconvert ! video/x-raw,format=RGBA,framerate=10/1 ! $UPLOAD \
  tflitefilter model="$model" labels="$labels" threshold=0.4 ! \
  tfliteoverlay ! \
  $DOWNLOAD videoconvert ! jpegenc ! avimux ! filesink location="$out"
echo "wrote $out ($frames frames)"

# Not part of the demo: the first frame as a PNG, for a quick look.
gst-launch-1.0 -q filesrc location="$out" ! avidemux ! jpegdec ! videoconvert ! \
  pngenc snapshot=true ! filesink location="${out%.avi}-frame0.png"
echo "wrote ${out%.avi}-frame0.png"
