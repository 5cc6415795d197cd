#!/bin/bash
# classify-boxes.sh - SSD -> classification of each box: COCO SSD finds objects, an
# ImageNet classifier runs on each box (all boxes of the frame in one batch) and its top
# class is drawn under the box; the classes are also printed from the bus messages.
# Prints e.g. "box #1 -> Egyptian cat 0.53" (the SSD's box, object 1: "cat 0.67") and writes out/chelsea-boxes.png (the cat
# boxed "cat 0.67", "Egyptian cat 0.53" under it).
# Usage: [MEMORY=system] pipelines/classify-boxes.sh [PICTURE]
set -euo pipefail
source "$(dirname "$0")/env.sh"

in=${1:-$PICTURES/chelsea.png}
ssd=$MODELS/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite
cls=$MODELS/mobilenet_v1_0.25_224.tflite
out=$OUT/$(basename "${in%.*}")-boxes$SUFFIX.png
need "$in" "$ssd" "$cls"
gst-launch-1.0 -m filesrc location="$in" ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! $UPLOAD \
  tflitefilter name=ssd model="$ssd" labels="$MODELS/coco_labelmap_91.txt" ! \
  tflitefilter name=cls model="$cls" labels="$MODELS/imagenet_labels_1001.txt" regions-from=ssd max-results=1 ! \
  tfliteoverlay ! $DOWNLOAD videoconvert ! pngenc ! filesink location="$out" |
  sed 's/\\//g' |
  sed -n 's/.*from element "cls".*label=(string)"\{0,1\}\([^",]*\)"\{0,1\}, score=(double)\([0-9.]\{4\}\).*parent-id=(guint64)\([0-9]*\).*/box #\3 -> \1 \2/p'
echo "wrote $out"
