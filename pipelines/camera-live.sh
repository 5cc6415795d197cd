#!/bin/bash
# camera-live.sh - live camera with selfie segmentation drawn on screen (needs a camera and a
# display; not run on the headless build machines).
#
# Shows: the whole live path on the GPU: camera frames are uploaded once as they come (no CPU
# conversion), tflitefilter runs the model on the frame's textures (GL delegate), tfliteoverlay draws on that texture, and
# glimagesink shows it: no frame pixels come back to the CPU. qos=true lets tflitefilter skip
# inference (reusing the last results) on frames that would be late, so the picture stays fluid.
# On screen: a window with the camera's picture, the person in front of it tinted in the
# palette's colour, following them as they move.
# Usage: pipelines/camera-live.sh [MODEL.tflite [DEVICE]]     e.g. a face detector:
#        pipelines/camera-live.sh models/cache/face_detection_short_range.tflite /dev/video0
# Run it in a desktop session (env.sh picks the headless egl-device only when there is no
# DISPLAY or WAYLAND_DISPLAY).
set -euo pipefail
source "$(dirname "$0")/env.sh"

model=${1:-$NPM/selfie_segmentation.tflite}
device=${2:-/dev/video0}
need "$model" "$device"

# The camera's own format (YUY2 on most webcams, NV12, ...) is uploaded as its planes and
# converted inside tflitefilter's texture-input shader; glcolorconvert only for the overlay,
# which draws on RGBA textures.
gst-launch-1.0 \
  v4l2src device="$device" ! glupload ! \
  tflitefilter model="$model" qos=true ! \
  glcolorconvert ! tfliteoverlay ! \
  glimagesink sync=false
