#!/bin/bash
# detect-yolo.sh - an Ultralytics YOLO export, as `YOLO(...).export(format="litert")` writes
# it, with no configuration: boxes and class names on a picture, to a PNG.
#
# Shows: decoder=auto recognizing the YOLO head from the metadata.json Ultralytics appends
# to the .tflite (task, class names, imgsz, end2end), fit=auto giving Ultralytics' grey
# letterbox and 0..1 input, the class names as labels, per-class NMS. iou-threshold=0.7 is
# Ultralytics' predict default (the element's own default is 0.3). Default model: the tiny
# YOLOv8 of tests/data/yolo (3 classes: square, disc, triangle, trained on synthetic shapes
# by make_yolo.py) on its 320x240 test picture (raw RGB). Any detection export works, e.g.
# yolov8n.tflite / yolo11n.tflite (80 COCO names), or YOLO26 exported with nms=False.
# GL path by default; MEMORY=system: CPU delegate and software drawing.
# Writes: out/yolo$SUFFIX.png - two boxes labelled "square" on the red square, 0.94 and 0.53
# (the two Ultralytics' predict gives: the picture has two overlapping squares); the small
# blue triangle stays under the threshold.
# Usage: [MEMORY=system] pipelines/detect-yolo.sh [MODEL.tflite [PICTURE.rgb WIDTH HEIGHT]]
set -euo pipefail
source "$(dirname "$0")/env.sh"

model=${1:-$REPO/tests/data/yolo/yolov8_shapes.tflite}
in=${2:-$REPO/tests/data/yolo/picture.rgb}
width=${3:-320}
height=${4:-240}
out=$OUT/yolo$SUFFIX.png
need "$in" "$model"

gst-launch-1.0 -q \
  filesrc location="$in" ! rawvideoparse width="$width" height="$height" format=rgb framerate=1/1 ! \
  videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter model="$model" threshold=0.25 iou-threshold=0.7 ! \
  tfliteoverlay ! \
  $DOWNLOAD videoconvert ! pngenc ! filesink location="$out"
echo "wrote $out"
